/** Loading the settings: from the environment (and setting files), every problem at once. */
import { readFileSync } from 'node:fs';
import { configVariables, EnvSchema, type Config, type ConfigVariable } from './schema.js';
import { togetherProblems } from './together.js';

/** What is wrong with the settings: the message says it in one line, `problems` one by one. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}

/**
 * Settings whose text may come from a file instead, named by the second variable (Docker and
 * Kubernetes mount secrets as files). Setting both is refused: which one counts would be a guess.
 */
export const settingFiles = {
  SIGNING_KEY: 'SIGNING_KEY_FILE',
  SPARKLE_PRIVATE_KEY: 'SPARKLE_PRIVATE_KEY_FILE',
} as const satisfies Partial<Record<ConfigVariable, ConfigVariable>>;

/**
 * The environment with each setting of `settingFiles` read from its file, and the problems of
 * doing so; `fromFile` maps a setting read from a file to the variable that named the file.
 */
function readSettingFiles(env: NodeJS.ProcessEnv) {
  const read: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  const fromFile = new Map<string, string>();
  for (const [setting, fileSetting] of Object.entries(settingFiles)) {
    const file = env[fileSetting]?.trim() ?? '';
    if (file === '') continue;
    if ((env[setting]?.trim() ?? '') !== '') {
      problems.push(`${fileSetting}: must not be set together with ${setting}`);
      continue;
    }
    try {
      const text = readFileSync(file, 'utf8');
      // An empty file is a mistake of the mount, not a setting left unset.
      if (text.trim() === '') problems.push(`${fileSetting}: must name a file that is not empty`);
      read[setting] = text;
      fromFile.set(setting, fileSetting);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push(`${fileSetting}: must name a readable file (${String(code ?? error)})`);
    }
  }
  return { read, problems, fromFile };
}

/**
 * The configuration of `env`, or a ConfigError naming every problem at once: each invalid
 * setting, each of `required` left unset or empty (a process of its own cannot do without
 * them), and settings wrong together among those the process `reads`, so that one attempt shows
 * all there is to fix.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  required: readonly ConfigVariable[] = [],
  reads: readonly ConfigVariable[] = configVariables,
): Config {
  const { read, problems, fromFile } = readSettingFiles(env);
  const parsed = EnvSchema.safeParse(read);
  const invalid = new Set<string>();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = issue.path.join('.');
      invalid.add(name);
      problems.push(`${fromFile.get(name) ?? name}: ${issue.message}`);
    }
  }
  for (const name of required) {
    if (invalid.has(name) || fromFile.has(name)) continue;
    const value = EnvSchema.shape[name].safeParse(read[name]);
    if (value.success && isUnset(value.data)) {
      const file = (settingFiles as Partial<Record<ConfigVariable, ConfigVariable>>)[name];
      const named = file === undefined ? name : `${name} (or ${file})`;
      problems.push(`${named}: required when this service runs as its own process`);
    }
  }
  const valueOf = <K extends ConfigVariable>(name: K) => {
    const value = EnvSchema.shape[name].safeParse(read[name]);
    return value.success && !isUnset(value.data) ? String(value.data) : undefined;
  };
  problems.push(
    ...togetherProblems(
      { DOWNLOAD_DELIVERY: valueOf('DOWNLOAD_DELIVERY'), S3_ENDPOINT: valueOf('S3_ENDPOINT') },
      (name) => reads.includes(name),
    ),
  );
  if (problems.length > 0 || !parsed.success)
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`, problems);
  return parsed.data;
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * The tracing settings alone, read before anything else is loaded (libs/observability). Invalid
 * ones leave tracing off here; the full load that follows reports them and stops the process.
 */
export function tracingSettings(
  env: NodeJS.ProcessEnv = process.env,
): Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'> {
  const parsed = EnvSchema.pick({
    OTEL_EXPORTER_OTLP_ENDPOINT: true,
    OTEL_SERVICE_NAME: true,
  }).safeParse(env);
  return parsed.success ? parsed.data : {};
}
