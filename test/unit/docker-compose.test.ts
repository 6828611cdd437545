import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../../libs/config/index.js';
import {
  entryPoints,
  processes,
  processOf,
  requiredSettings,
  settingsRead,
} from '../support/process-settings.js';

/**
 * Docker Compose cannot run on CI, so docker-compose.yml, infra/Dockerfile and .env.example are
 * checked against the code they start: every entry point has a service, every variable is a real
 * setting, every setting an entry point requires is given, every service reports its health and
 * waits for what it uses, the scalable services can scale and stop gracefully, and .env.example
 * lists every variable with its default. Each rule is a function returning problems, run on the
 * real files and on broken copies (so it can fail).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const SCALABLE = ['license', 'update-catalog', 'download', 'gateway'];
/** A graceful stop takes up to 30 s (HTTP requests in flight, then RPC requests in hand). */
const MIN_STOP_GRACE_SECONDS = 35;
/** Where the infrastructure keeps what must survive a restart. */
const DATA_DIRECTORIES: Array<[string, string]> = [
  ['mongo', '/data/db'],
  ['minio', '/data'],
  ['rabbitmq', '/var/lib/rabbitmq'],
];
const DOCKERFILE = 'infra/Dockerfile';
/** Settings that are secrets: each comes from the operator's environment or .env, never the file. */
const SECRETS = ['ADMIN_TOKENS', 'DOWNLOAD_SIGNING_KEY', 'SIGNING_KEY'];
const BASE_IMAGE = 'node:20-bookworm-slim';

type Service = Record<string, unknown>;
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseCompose(text: string): Compose {
  // Compose resolves YAML merge keys (`<<: *app`), so the parser must too.
  const doc: unknown = parse(text, { merge: true });
  if (!isRecord(doc) || !isRecord(doc.services)) throw new Error('no services in compose file');
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(doc.services)) {
    services[name] = isRecord(service) ? service : {};
  }
  return { services, volumes: isRecord(doc.volumes) ? doc.volumes : {} };
}

interface Context {
  entryPoints: string[];
  /** What `npm ci && npm run build` reads: package files, tsconfigs, compiled folders. */
  buildInputs: string[];
  configKeys: Set<string>;
  /** What loadConfig gives each setting when nothing is set. */
  defaults: Record<string, unknown>;
  requiredSettings: Record<string, string[]>;
  /** What each entry point reads of the configuration. */
  settingsRead: Record<string, string[]>;
  sourceExists(service: string): boolean;
}

function realContext(): Context {
  const names = entryPoints();
  const tsconfigBuild = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
  return {
    entryPoints: names,
    buildInputs: [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      ...tsconfigBuild.include,
    ],
    configKeys: new Set(configVariables),
    defaults: loadConfig({}),
    requiredSettings: Object.fromEntries(names.map((n) => [n, requiredSettings(processOf(n))])),
    settingsRead: Object.fromEntries(names.map((n) => [n, settingsRead(processOf(n))])),
    sourceExists: (n) => existsSync(path.join(root, 'services', n, 'main.ts')),
  };
}

// ---- Reading compose service entries (both the list and the map forms) ----

function commandScript(service: Service): string | undefined {
  const { command } = service;
  const words = Array.isArray(command)
    ? command.map(String)
    : typeof command === 'string'
      ? command.split(/\s+/)
      : [];
  return words.find((w) => /^dist\/services\/[^/]+\/main\.js$/.test(w));
}

function environment(service: Service): Map<string, string> {
  const env = new Map<string, string>();
  const { environment: value } = service;
  if (Array.isArray(value)) {
    for (const entry of value.map(String)) {
      const at = entry.indexOf('=');
      env.set(at === -1 ? entry : entry.slice(0, at), at === -1 ? '' : entry.slice(at + 1));
    }
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) env.set(k, v === null ? '' : String(v));
  }
  return env;
}

function dependencies(service: Service): Map<string, string> {
  const deps = new Map<string, string>();
  const { depends_on: value } = service;
  if (Array.isArray(value)) {
    for (const name of value.map(String)) deps.set(name, 'service_started');
  } else if (isRecord(value)) {
    for (const [name, spec] of Object.entries(value)) {
      deps.set(name, isRecord(spec) ? String(spec.condition ?? 'service_started') : '');
    }
  }
  return deps;
}

/** A variable reference in the compose file: `${NAME}`, `${NAME:-default}`, `${NAME:?message}`. */
interface Interpolation {
  name: string;
  /** The text used when the variable is unset (or empty, with `:-`). */
  fallback?: string;
  required: boolean;
}

function interpolations(value: unknown, found: Interpolation[] = []): Interpolation[] {
  if (typeof value === 'string') {
    // `$$` is a literal `$` for the container's shell, not a variable of compose.
    const text = value.replace(/\$\$/g, '');
    const pattern =
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
    for (const m of text.matchAll(pattern)) {
      const operator = m[2] ?? '';
      found.push({
        name: (m[1] ?? m[4]) as string,
        fallback: operator.endsWith('-') ? (m[3] ?? '') : undefined,
        required: operator.endsWith('?'),
      });
    }
  } else if (Array.isArray(value)) {
    for (const item of value) interpolations(item, found);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      interpolations(key, found);
      interpolations(item, found);
    }
  }
  return found;
}

/** A value as compose reads it when no variable is set: each reference gives way to its default. */
function withDefaults(value: string): string {
  return value
    .replace(
      /\$\{[A-Za-z_][A-Za-z0-9_]*(?:(:?[-?])([^}]*))?\}/g,
      (_all, operator?: string, text?: string) => (operator?.endsWith('-') ? (text ?? '') : ''),
    )
    .replace(/\$\$/g, '$');
}

/**
 * `"8080:8080"`, `"127.0.0.1:8080:8080"` or `{published: 8080}` fix a host port; `"8080"` (a
 * random one) and a range, `"8080-8089:8080"` (the next free one of it), do not.
 */
function fixedHostPorts(service: Service): string[] {
  const ports = Array.isArray(service.ports) ? service.ports : [];
  const isFixed = (published: string) => {
    if (published === '') return false;
    const range = /^(\d+)-(\d+)$/.exec(published);
    return !range || Number(range[2]) <= Number(range[1]);
  };
  return ports
    .filter((p) => {
      if (isRecord(p)) {
        return p.published !== undefined && isFixed(withDefaults(String(p.published)));
      }
      const parts = withDefaults(String(p))
        .replace(/\/\w+$/, '')
        .split(':');
      return parts.length > 1 && isFixed(parts.at(-2) as string);
    })
    .map((p) => JSON.stringify(p));
}

function hasHealthcheck(service: Service): boolean {
  const check = service.healthcheck;
  if (!isRecord(check) || check.disable === true) return false;
  const test = Array.isArray(check.test) ? check.test.map(String) : [String(check.test ?? '')];
  return test.length > 0 && test[0] !== 'NONE' && test.join('') !== '';
}

function healthcheckText(service: Service): string {
  const test = isRecord(service.healthcheck) ? service.healthcheck.test : undefined;
  return Array.isArray(test) ? test.map(String).join(' ') : String(test ?? '');
}

/**
 * A container that runs once and exits (an init step), marked by an explicit `restart: "no"`
 * where every long-running service restarts: its exit code is its health.
 */
function isOneShot(service: Service): boolean {
  return service.restart === 'no' || service.restart === false;
}

function profiles(service: Service): string[] {
  return Array.isArray(service.profiles) ? service.profiles.map(String) : [];
}

function commandText(service: Service): string {
  const parts = [service.entrypoint, service.command].flatMap((v) =>
    Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)],
  );
  return parts.join(' ');
}

/** Seconds of a compose duration (`40s`, `1m30s`, `1m`); undefined when it is not one. */
function durationSeconds(value: unknown): number | undefined {
  const text = String(value ?? '');
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== text) return undefined;
  return parts.reduce((sum, m) => sum + Number(m[1]) * (units[m[2] as string] as number), 0);
}

function buildsFromDockerfile(service: Service): boolean {
  const { build } = service;
  return isRecord(build) && build.dockerfile === DOCKERFILE && (build.context ?? '.') === '.';
}

/** `amqp://user:pass@rabbitmq:5672` names the compose service `rabbitmq`. */
function urlHost(value: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^:/?]+)/i.exec(value)?.[1];
}

// ---- The rules ----

function checkCompose(compose: Compose, ctx: Context): string[] {
  const problems: string[] = [];
  const { services } = compose;
  const apps = Object.entries(services).filter(
    ([, s]) => buildsFromDockerfile(s) || commandScript(s),
  );

  for (const name of ctx.entryPoints) {
    const service = services[name];
    if (!service) {
      problems.push(`services/${name}/main.ts has no compose service "${name}"`);
      continue;
    }
    if (commandScript(service) !== `dist/services/${name}/main.js`) {
      problems.push(`${name}: command does not run dist/services/${name}/main.js`);
    }
    if (!buildsFromDockerfile(service)) problems.push(`${name}: not built from ${DOCKERFILE}`);
    if (service.restart !== 'unless-stopped')
      problems.push(`${name}: restart is not unless-stopped`);
  }

  // A setting the file passes to one service reaches every service that reads it: an operator
  // who sets it in .env expects it to apply wherever it means something.
  const passed = new Set(apps.flatMap(([, service]) => [...environment(service).keys()]));

  for (const [name, service] of apps) {
    const script = commandScript(service);
    const target = script?.split('/')[2];
    if (!target) problems.push(`${name}: command runs no dist/services/<name>/main.js`);
    else if (!ctx.sourceExists(target)) {
      problems.push(`${name}: runs ${script}, but services/${target}/main.ts does not exist`);
    }

    const env = environment(service);
    for (const key of env.keys()) {
      if (!ctx.configKeys.has(key)) {
        problems.push(`${name}: ${key} is not a setting of libs/config/index.ts`);
      }
    }
    for (const key of (target && ctx.requiredSettings[target]) || []) {
      if (!env.get(key)) problems.push(`${name}: needs ${key}, which is not set`);
    }
    for (const key of (target && ctx.settingsRead[target]) || []) {
      if (passed.has(key) && !env.has(key)) {
        problems.push(`${name}: reads ${key}, which is passed to other services but not to it`);
      }
    }
    for (const secret of SECRETS) {
      const value = env.get(secret);
      if (value !== undefined && !new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`).test(value)) {
        problems.push(`${name}: ${secret} must come from \${${secret}:?...}, not the file`);
      }
    }

    // Whatever the service connects to must be up and healthy before it starts.
    const deps = dependencies(service);
    for (const value of env.values()) {
      const host = urlHost(value);
      // A service's own address (the URL others reach it at) is not a dependency.
      if (host && host !== name && services[host] && deps.get(host) !== 'service_healthy') {
        problems.push(`${name}: connects to ${host} but does not wait for it to be healthy`);
      }
    }

    // The operations port: fixed, so the healthcheck (and a scraper) can find it.
    const metricsPort = env.get('METRICS_PORT') ?? '';
    if (!/^[1-9][0-9]*$/.test(metricsPort)) {
      problems.push(`${name}: METRICS_PORT is not set to a fixed port`);
    } else {
      const probed = /\/\/(?:127\.0\.0\.1|localhost):(\d+)\/readyz\b/.exec(
        healthcheckText(service),
      );
      if (probed?.[1] !== metricsPort) {
        problems.push(
          `${name}: healthcheck does not probe /readyz on its METRICS_PORT ${metricsPort}`,
        );
      }
    }

    const grace = durationSeconds(service.stop_grace_period);
    if (grace === undefined) {
      problems.push(`${name}: no stop_grace_period, so Docker kills it after 10 s`);
    } else if (grace < MIN_STOP_GRACE_SECONDS) {
      problems.push(
        `${name}: stop_grace_period ${String(service.stop_grace_period)} is under ${MIN_STOP_GRACE_SECONDS}s`,
      );
    }

    // Tracing is off unless the operator points the services at a backend.
    const otlp = env.get('OTEL_EXPORTER_OTLP_ENDPOINT');
    if (otlp === undefined || !/^\$\{OTEL_EXPORTER_OTLP_ENDPOINT:?-\}$/.test(otlp)) {
      problems.push(
        `${name}: OTEL_EXPORTER_OTLP_ENDPOINT is not \${OTEL_EXPORTER_OTLP_ENDPOINT:-} (off unless set)`,
      );
    }
  }

  for (const name of SCALABLE) {
    const service = services[name];
    if (!service) continue;
    if (service.container_name !== undefined) {
      problems.push(`${name}: container_name prevents --scale`);
    }
    for (const port of fixedHostPorts(service)) {
      problems.push(`${name}: fixed host port ${port} prevents --scale`);
    }
  }

  // Every long-running service reports its health; a one-shot one reports its exit code.
  for (const [name, service] of Object.entries(services)) {
    if (!isOneShot(service) && !hasHealthcheck(service))
      problems.push(`${name}: has no healthcheck`);
  }

  for (const [name, service] of Object.entries(services)) {
    for (const [dep, condition] of dependencies(service)) {
      const target = services[dep];
      if (!target) problems.push(`${name}: depends on unknown service ${dep}`);
      else if (isOneShot(target)) {
        if (condition !== 'service_completed_successfully') {
          problems.push(
            `${name}: waits for one-shot ${dep} with ${condition}, not service_completed_successfully`,
          );
        }
      } else if (condition !== 'service_healthy') {
        problems.push(`${name}: depends on ${dep} without waiting for it to be healthy`);
      } else if (!hasHealthcheck(target)) {
        problems.push(`${name}: waits for ${dep} to be healthy, but ${dep} has no healthcheck`);
      }
    }
  }

  // The bucket exists before a service that stores files in it starts: a one-shot service
  // creates it once the storage answers.
  for (const [name, service] of apps) {
    const env = environment(service);
    const storage = urlHost(env.get('S3_ENDPOINT') ?? '');
    const bucket = env.get('S3_BUCKET');
    if (!storage || !services[storage] || !bucket) continue;
    const creators = Object.entries(services).filter(
      ([, s]) =>
        isOneShot(s) && /\bmc mb\b/.test(commandText(s)) && commandText(s).includes(bucket),
    );
    if (creators.length === 0) {
      problems.push(`${name}: no one-shot service creates its bucket ${bucket} (mc mb)`);
    }
    for (const [init, initService] of creators) {
      if (dependencies(service).get(init) !== 'service_completed_successfully') {
        problems.push(`${name}: does not wait for ${init} to create the bucket`);
      }
      if (dependencies(initService).get(storage) !== 'service_healthy') {
        problems.push(`${init}: creates the bucket without waiting for ${storage} to be healthy`);
      }
    }
  }

  // Optional parts (the tracing backend) run only with their profile: nothing else may need them.
  const tracing = Object.entries(services).filter(([, s]) =>
    String(s.image ?? '').startsWith('jaegertracing/'),
  );
  if (tracing.length === 0) problems.push('no tracing backend (jaegertracing/ image)');
  for (const [name, service] of tracing) {
    if (profiles(service).length === 0) problems.push(`${name}: tracing backend has no profile`);
  }
  for (const [name, service] of Object.entries(services)) {
    if (profiles(service).length > 0) continue;
    for (const dep of dependencies(service).keys()) {
      if (services[dep] && profiles(services[dep]).length > 0) {
        problems.push(`${name}: depends on ${dep}, which runs only with its profile`);
      }
    }
    for (const value of environment(service).values()) {
      const host = urlHost(value);
      if (host && services[host] && profiles(services[host]).length > 0) {
        problems.push(`${name}: connects to ${host}, which runs only with its profile`);
      }
    }
  }

  // One variable, one default: `${MINIO_ROOT_USER:-a}` here and `:-b` there would not match.
  const fallbacks = new Map<string, Set<string>>();
  for (const { name, fallback } of interpolations([services, compose.volumes])) {
    if (fallback === undefined) continue;
    fallbacks.set(name, (fallbacks.get(name) ?? new Set()).add(fallback));
  }
  for (const [name, values] of fallbacks) {
    if (values.size > 1) {
      const shown = [...values].map((v) => JSON.stringify(v)).join(', ');
      problems.push(`docker-compose.yml: \${${name}} has different defaults: ${shown}`);
    }
  }

  const infra: Array<[string, string]> = [
    ['rabbitmq', 'rabbitmq:3-management'],
    ['mongo', 'mongo:7'],
    ['redis', 'redis:7'],
  ];
  for (const [name, image] of infra) {
    const service = services[name];
    if (!service) problems.push(`no ${name} service`);
    else if (service.image !== image) problems.push(`${name}: image is not ${image}`);
  }
  for (const [name, directory] of DATA_DIRECTORIES) {
    const volumes = Array.isArray(services[name]?.volumes) ? services[name].volumes : [];
    const volumeName = volumes
      .map((v) => String(v).split(':'))
      .find(([, target]) => target === directory)?.[0];
    if (!volumeName || !(volumeName in compose.volumes)) {
      problems.push(`${name}: ${directory} is not on a named volume`);
    }
  }
  return problems;
}

/** `NAME=value` and `# NAME=value` lines (a commented one shows the default, ready to change). */
function envExampleEntries(text: string): { entries: Map<string, string>; repeated: string[] } {
  const entries = new Map<string, string>();
  const repeated: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(?:#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1] as string;
    const value = (m[2] as string).trim().replace(/^'(.*)'$|^"(.*)"$/, '$1$2');
    if (entries.has(name)) repeated.push(name);
    entries.set(name, value);
  }
  return { entries, repeated };
}

/**
 * .env.example names every variable: each setting of libs/config/index.ts and each variable
 * docker-compose.yml reads, with the default that applies.
 */
function checkEnvExample(text: string, compose: Compose, ctx: Context): string[] {
  const problems: string[] = [];
  const { entries, repeated } = envExampleEntries(text);
  for (const name of repeated) problems.push(`.env.example: ${name} is listed twice`);

  const composeVariables = new Map<string, Interpolation>();
  for (const ref of interpolations([compose.services, compose.volumes])) {
    const known = composeVariables.get(ref.name);
    if (!known || (known.fallback === undefined && !known.required)) {
      composeVariables.set(ref.name, ref);
    }
  }
  const expected: Array<[string, string]> = [
    ...[...ctx.configKeys].map((k): [string, string] => [k, 'a setting of libs/config/index.ts']),
    ...[...composeVariables.keys()].map((k): [string, string] => [k, 'read by docker-compose.yml']),
  ];
  for (const [name, why] of expected) {
    if (!entries.has(name)) problems.push(`.env.example does not list ${name} (${why})`);
  }

  for (const [name, value] of entries) {
    const ref = composeVariables.get(name);
    // Where compose reads a variable, its default is the one that applies there.
    const fallback = ref
      ? ref.fallback
      : ctx.configKeys.has(name)
        ? defaultText(ctx.defaults[name])
        : undefined;
    if (ref?.required || fallback === undefined) continue;
    if (value !== fallback) {
      problems.push(
        `.env.example: ${name}=${value}, but its default is ${JSON.stringify(fallback)}`,
      );
    }
  }
  return problems;
}

/** A default as written in a .env file; undefined when it has no one-line form (a list). */
function defaultText(value: unknown): string | undefined {
  if (value === undefined) return '';
  if (['string', 'number', 'boolean'].includes(typeof value)) return String(value);
  return undefined;
}

interface Stage {
  base: string;
  name: string | undefined;
  lines: string[];
}

function dockerfileStages(text: string): Stage[] {
  const stages: Stage[] = [];
  // Continuation lines are joined, so one instruction is one line.
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(trimmed);
    if (from) stages.push({ base: from[1] as string, name: from[2], lines: [] });
    else stages.at(-1)?.lines.push(trimmed);
  }
  return stages;
}

/** Sources of the build stage's `COPY` lines (not `--from`), as repository paths. */
function copiedSources(stage: Stage): string[] {
  return stage.lines
    .filter((l) => /^COPY\s/i.test(l) && !/--from=/i.test(l))
    .flatMap((l) => l.split(/\s+/).slice(1, -1))
    .filter((word) => !word.startsWith('--'))
    .map((word) => word.replace(/^\.\//, '').replace(/\/$/, ''));
}

function checkDockerfile(text: string, ctx: Context): string[] {
  const problems: string[] = [];
  const stages = dockerfileStages(text);
  if (stages.length < 2) problems.push('Dockerfile is not multi-stage');
  for (const stage of stages) {
    if (stage.base !== BASE_IMAGE) problems.push(`stage ${stage.name}: base is not ${BASE_IMAGE}`);
  }
  const runs = (stage: Stage, pattern: RegExp) =>
    stage.lines.some((l) => /^RUN\s/i.test(l) && pattern.test(l));

  const build = stages.find((s) => runs(s, /\bnpm run build\b/));
  if (!build) problems.push('no stage runs npm run build');
  else {
    if (!runs(build, /\bnpm ci\b(?!.*--omit)/)) {
      problems.push('the build stage does not install all dependencies with npm ci');
    }
    // tsc in the image sees only what is copied in: everything the build compiles or reads.
    const copied = copiedSources(build);
    for (const needed of ctx.buildInputs) {
      if (!copied.includes(needed)) problems.push(`the build stage does not copy ${needed}`);
    }
  }

  const runtime = stages.at(-1);
  if (runtime && runtime !== build) {
    if (!runs(runtime, /\bnpm ci\b.*--omit=dev/)) {
      problems.push('the runtime stage does not install with npm ci --omit=dev');
    }
    const copiesDist = runtime.lines.some(
      (l) => /^COPY\s+--from=(\S+)\s.*\bdist\b/i.exec(l)?.[1] === build?.name,
    );
    if (!copiesDist) problems.push('the runtime stage does not copy dist from the build stage');
    if (runs(runtime, /\bnpm run build\b|\btsc\b/)) problems.push('the runtime stage compiles');
  } else {
    problems.push('the runtime stage is the build stage');
  }

  // The services bind to loopback by default; in a container that would answer nobody.
  const env = (runtime?.lines ?? []).filter((l) => /^ENV\s/i.test(l)).join(' ');
  if (!/\bHOST=0\.0\.0\.0\b/.test(env)) problems.push('the image does not set HOST=0.0.0.0');

  const user = runtime?.lines
    .filter((l) => /^USER\s/i.test(l))
    .at(-1)
    ?.split(/\s+/)[1];
  if (!user || /^(root|0)(:|$)/.test(user)) problems.push('the image runs as root');

  const cmd = runtime?.lines.find((l) => /^CMD\s/i.test(l)) ?? '';
  const script = /dist\/services\/([^/"]+)\/main\.js/.exec(cmd);
  if (!script || !ctx.sourceExists(script[1] as string)) {
    problems.push('CMD does not run an existing dist/services/<name>/main.js');
  }
  return problems;
}

// ---- Tests ----

const ctx = realContext();
const composeText = read('docker-compose.yml');
const dockerfileText = read(DOCKERFILE);
const compose = () => parseCompose(composeText);
const envExampleText = read('.env.example');

/** A copy of a service with some environment variables replaced (undefined: removed). */
function withEnv(service: Service | undefined, changes: Record<string, string | undefined>) {
  const env: Record<string, string> = Object.fromEntries(environment(service ?? {}));
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return { ...service, environment: env };
}

describe('the rules read the code', () => {
  test('the entry points are found', () => {
    expect(ctx.entryPoints).toEqual(
      expect.arrayContaining(['gateway', 'license', 'management', 'update-catalog', 'download']),
    );
  });

  test('the settings include every key loadConfig returns', () => {
    // loadConfig({}) omits optional URLs, so it is a lower bound on the settings.
    for (const key of Object.keys(loadConfig({}))) expect(ctx.configKeys).toContain(key);
    for (const key of ['AMQP_URL', 'MONGODB_URL', 'REDIS_URL', 'PUBLIC_URL']) {
      expect(ctx.configKeys).toContain(key);
    }
  });

  test('compose variables, their defaults and ports are read as compose reads them', () => {
    expect(interpolations(['${A:-1}', '$B', '${C:?say}', '$$D ${E-}', { '${F}': 'x' }])).toEqual([
      { name: 'A', fallback: '1', required: false },
      { name: 'B', fallback: undefined, required: false },
      { name: 'C', fallback: undefined, required: true },
      { name: 'E', fallback: '', required: false },
      { name: 'F', fallback: undefined, required: false },
    ]);
    expect(
      fixedHostPorts({
        ports: [
          '${P:-8080-8089}:8080',
          '8080',
          '127.0.0.1::8080',
          '${Q:-8081}:8081',
          '127.0.0.1:9000:9000/tcp',
          '7000-7000:80',
          { target: 80, published: '9100-9109' },
        ],
      }),
    ).toEqual(['"${Q:-8081}:8081"', '"127.0.0.1:9000:9000/tcp"', '"7000-7000:80"']);
    expect(['40s', '1m', '1m30s', '500ms', '40', ''].map(durationSeconds)).toEqual([
      40,
      60,
      90,
      0.5,
      undefined,
      undefined,
    ]);
  });

  test('every entry point says what it reads, and every setting is read by one', () => {
    expect(Object.keys(processes).sort()).toEqual(ctx.entryPoints);
    const readByOne = new Set(Object.values(ctx.settingsRead).flat());
    for (const key of ctx.configKeys) expect(readByOne).toContain(key);
  });

  test('required settings are read from the entry points', () => {
    expect(ctx.requiredSettings.license).toEqual(['AMQP_URL', 'MONGODB_URL']);
    expect(ctx.requiredSettings['update-catalog']).toEqual(['AMQP_URL', 'MONGODB_URL']);
    expect(ctx.requiredSettings.gateway).toEqual(['AMQP_URL', 'SIGNING_KEY']);
    expect(ctx.requiredSettings.management).toEqual(['ADMIN_TOKENS', 'AMQP_URL', 'MONGODB_URL']);
  });

  test('tsc emits services/<name>/main.ts as dist/services/<name>/main.js', () => {
    const base = JSON.parse(read('tsconfig.json')) as { compilerOptions: Record<string, unknown> };
    const build = JSON.parse(read('tsconfig.build.json')) as {
      extends?: string;
      include: string[];
      compilerOptions?: Record<string, unknown>;
    };
    const options = { ...base.compilerOptions, ...build.compilerOptions };
    expect(build.extends).toBe('./tsconfig.json');
    expect(options).toMatchObject({ rootDir: '.', outDir: 'dist', noEmit: false });
    expect(build.include).toEqual(expect.arrayContaining(['libs', 'services']));
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // The compiled services, then the web pages bundled beside them (dist/web), which the image
    // serves since it has no bundler.
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json && tsx libs/web/build.ts dist');
  });
});

describe('docker-compose.yml', () => {
  test('follows every rule', () => {
    expect(checkCompose(compose(), ctx)).toEqual([]);
  });

  test('a missing entry point service is caught', () => {
    const broken = compose();
    delete broken.services.download;
    expect(checkCompose(broken, ctx)).toContain(
      'services/download/main.ts has no compose service "download"',
    );
  });

  test('a command naming a file that does not exist is caught', () => {
    const broken = compose();
    broken.services.license = {
      ...broken.services.license,
      command: ['node', 'dist/services/licence/main.js'],
    };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: command does not run dist/services/license/main.js',
        'license: runs dist/services/licence/main.js, but services/licence/main.ts does not exist',
      ]),
    );
  });

  test('a variable that is not a setting is caught', () => {
    const broken = compose();
    broken.services.gateway = {
      ...broken.services.gateway,
      environment: ['AMQP_URL=amqp://rabbitmq', 'GATEWAY_PORT=8080'],
    };
    expect(checkCompose(broken, ctx)).toContain(
      'gateway: GATEWAY_PORT is not a setting of libs/config/index.ts',
    );
  });

  test('a setting passed to one service but not to another that reads it is caught', () => {
    const broken = compose();
    const env = Object.fromEntries(environment(broken.services.download ?? {}));
    delete env.PRODUCT_CACHE_TTL_MS;
    broken.services.download = { ...broken.services.download, environment: env };
    expect(ctx.settingsRead.download).toContain('PRODUCT_CACHE_TTL_MS');
    expect(checkCompose(broken, ctx)).toContain(
      'download: reads PRODUCT_CACHE_TTL_MS, which is passed to other services but not to it',
    );
  });

  test('a required setting that is missing is caught', () => {
    const broken = compose();
    const env = Object.fromEntries(environment(broken.services.license ?? {}));
    delete env.MONGODB_URL;
    broken.services.license = { ...broken.services.license, environment: env };
    expect(checkCompose(broken, ctx)).toContain('license: needs MONGODB_URL, which is not set');
  });

  test('an admin token written into the file is caught', () => {
    const broken = compose();
    const env = { ...Object.fromEntries(environment(broken.services.management ?? {})) };
    env.ADMIN_TOKENS = 'secret';
    broken.services.management = { ...broken.services.management, environment: env };
    expect(checkCompose(broken, ctx)).toContain(
      'management: ADMIN_TOKENS must come from ${ADMIN_TOKENS:?...}, not the file',
    );
  });

  test('a signing key written into the file is caught', () => {
    const broken = compose();
    broken.services.gateway = withEnv(broken.services.gateway, {
      SIGNING_KEY:
        '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI...\n-----END PRIVATE KEY-----',
    });
    expect(checkCompose(broken, ctx)).toContain(
      'gateway: SIGNING_KEY must come from ${SIGNING_KEY:?...}, not the file',
    );
  });

  test('a container name or fixed host port on a scalable service is caught', () => {
    const broken = compose();
    broken.services.license = { ...broken.services.license, container_name: 'license' };
    broken.services.download = { ...broken.services.download, ports: ['9000:9000'] };
    broken.services['update-catalog'] = {
      ...broken.services['update-catalog'],
      ports: [{ target: 9000, published: 9000 }],
    };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: container_name prevents --scale',
        'download: fixed host port "9000:9000" prevents --scale',
        'update-catalog: fixed host port {"target":9000,"published":9000} prevents --scale',
      ]),
    );
    broken.services.download = { ...broken.services.download, ports: ['9000'] };
    expect(checkCompose(broken, ctx).join('\n')).not.toContain('download: fixed host port');
  });

  test('waiting for the health of a service without a healthcheck is caught', () => {
    const broken = compose();
    broken.services.redis = { ...broken.services.redis, healthcheck: undefined };
    expect(checkCompose(broken, ctx)).toContain(
      'gateway: waits for redis to be healthy, but redis has no healthcheck',
    );
  });

  test('a service that does not wait for the database it connects to is caught', () => {
    const broken = compose();
    broken.services.license = { ...broken.services.license, depends_on: ['rabbitmq'] };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: connects to mongo but does not wait for it to be healthy',
        'license: connects to rabbitmq but does not wait for it to be healthy',
      ]),
    );
  });

  test('mongo data off a named volume is caught', () => {
    const broken = compose();
    broken.services.mongo = { ...broken.services.mongo, volumes: [] };
    expect(checkCompose(broken, ctx)).toContain('mongo: /data/db is not on a named volume');
  });

  test('MinIO or RabbitMQ data off a named volume is caught', () => {
    const broken = compose();
    broken.services.minio = { ...broken.services.minio, volumes: ['./minio:/data'] };
    broken.services.rabbitmq = { ...broken.services.rabbitmq, volumes: undefined };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'minio: /data is not on a named volume',
        'rabbitmq: /var/lib/rabbitmq is not on a named volume',
      ]),
    );
  });

  test('a service without a healthcheck is caught; a one-shot service needs none', () => {
    expect(isOneShot(compose().services['minio-init'] ?? {})).toBe(true);
    const broken = compose();
    broken.services.license = { ...broken.services.license, healthcheck: { disable: true } };
    broken.services.jaeger = { ...broken.services.jaeger, healthcheck: undefined };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: has no healthcheck',
        'jaeger: has no healthcheck',
        'gateway: waits for license to be healthy, but license has no healthcheck',
      ]),
    );
  });

  test('a dependency not waited for with the condition its kind needs is caught', () => {
    const broken = compose();
    broken.services.license = {
      ...broken.services.license,
      depends_on: { rabbitmq: { condition: 'service_healthy' }, mongo: {} },
    };
    broken.services.download = {
      ...broken.services.download,
      depends_on: {
        rabbitmq: { condition: 'service_healthy' },
        mongo: { condition: 'service_healthy' },
        minio: { condition: 'service_healthy' },
        'minio-init': { condition: 'service_started' },
      },
    };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: depends on mongo without waiting for it to be healthy',
        'download: waits for one-shot minio-init with service_started, not service_completed_successfully',
        'download: does not wait for minio-init to create the bucket',
      ]),
    );
  });

  test('a bucket nobody creates, or created too late or too early, is caught', () => {
    const noInit = compose();
    delete noInit.services['minio-init'];
    expect(checkCompose(noInit, ctx)).toEqual(
      expect.arrayContaining([
        'download: depends on unknown service minio-init',
        'download: no one-shot service creates its bucket ${S3_BUCKET:-licensing-packages} (mc mb)',
      ]),
    );

    const otherBucket = compose();
    otherBucket.services['minio-init'] = {
      ...otherBucket.services['minio-init'],
      command: ['mc mb --ignore-existing local/packages'],
    };
    expect(checkCompose(otherBucket, ctx)).toContain(
      'download: no one-shot service creates its bucket ${S3_BUCKET:-licensing-packages} (mc mb)',
    );

    const early = compose();
    early.services['minio-init'] = { ...early.services['minio-init'], depends_on: undefined };
    expect(checkCompose(early, ctx)).toContain(
      'minio-init: creates the bucket without waiting for minio to be healthy',
    );
  });

  test('an operations port that is not fixed or not probed is caught', () => {
    const broken = compose();
    broken.services.license = withEnv(broken.services.license, { METRICS_PORT: undefined });
    broken.services['update-catalog'] = withEnv(broken.services['update-catalog'], {
      METRICS_PORT: '0',
    });
    broken.services.gateway = {
      ...broken.services.gateway,
      healthcheck: {
        test: ['CMD', 'node', '-e', "fetch('http://127.0.0.1:8080/healthz')"],
      },
    };
    broken.services.download = withEnv(broken.services.download, { METRICS_PORT: '9465' });
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license: METRICS_PORT is not set to a fixed port',
        'update-catalog: METRICS_PORT is not set to a fixed port',
        'gateway: healthcheck does not probe /readyz on its METRICS_PORT 9464',
        'download: healthcheck does not probe /readyz on its METRICS_PORT 9465',
      ]),
    );
  });

  test('a stop grace period shorter than a graceful stop is caught', () => {
    const broken = compose();
    broken.services.license = { ...broken.services.license, stop_grace_period: '10s' };
    broken.services.gateway = { ...broken.services.gateway, stop_grace_period: undefined };
    broken.services.download = { ...broken.services.download, stop_grace_period: '1m' };
    const problems = checkCompose(broken, ctx);
    expect(problems).toEqual(
      expect.arrayContaining([
        'license: stop_grace_period 10s is under 35s',
        'gateway: no stop_grace_period, so Docker kills it after 10 s',
      ]),
    );
    expect(problems.join('\n')).not.toContain('download: stop_grace_period');
  });

  test('a scaled gateway on one fixed host port is caught; a range is not', () => {
    const broken = compose();
    broken.services.gateway = {
      ...broken.services.gateway,
      container_name: 'gateway',
      ports: ['${GATEWAY_PORT:-8080}:8080'],
    };
    expect(checkCompose(broken, ctx)).toEqual(
      expect.arrayContaining([
        'gateway: container_name prevents --scale',
        'gateway: fixed host port "${GATEWAY_PORT:-8080}:8080" prevents --scale',
      ]),
    );
    expect(fixedHostPorts(compose().services.gateway ?? {})).toEqual([]);
  });

  test('a tracing backend outside a profile, or needed without it, is caught', () => {
    const broken = compose();
    broken.services.jaeger = { ...broken.services.jaeger, profiles: undefined };
    expect(checkCompose(broken, ctx)).toContain('jaeger: tracing backend has no profile');

    const needed = compose();
    needed.services.license = {
      ...withEnv(needed.services.license, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }),
      depends_on: {
        ...(needed.services.license?.depends_on as object),
        jaeger: { condition: 'service_healthy' },
      },
    };
    expect(checkCompose(needed, ctx)).toEqual(
      expect.arrayContaining([
        'license: depends on jaeger, which runs only with its profile',
        'license: connects to jaeger, which runs only with its profile',
        'license: OTEL_EXPORTER_OTLP_ENDPOINT is not ${OTEL_EXPORTER_OTLP_ENDPOINT:-} (off unless set)',
      ]),
    );

    const none = compose();
    delete none.services.jaeger;
    expect(checkCompose(none, ctx)).toContain('no tracing backend (jaegertracing/ image)');
  });

  test('a variable with two defaults is caught', () => {
    const broken = compose();
    broken.services.download = withEnv(broken.services.download, {
      S3_ACCESS_KEY: '${MINIO_ROOT_USER:-minio}',
    });
    expect(checkCompose(broken, ctx)).toContain(
      'docker-compose.yml: ${MINIO_ROOT_USER} has different defaults: "licensing", "minio"',
    );
  });
});

describe('.env.example', () => {
  test('follows every rule', () => {
    expect(checkEnvExample(envExampleText, compose(), ctx)).toEqual([]);
  });

  test('lists every setting and every compose variable', () => {
    const { entries } = envExampleEntries(envExampleText);
    for (const key of ctx.configKeys) expect(entries.has(key)).toBe(true);
    for (const { name } of interpolations(compose().services)) expect(entries.has(name)).toBe(true);
  });

  test('a setting or a compose variable left out is caught', () => {
    const broken = envExampleText.replace(/^.*\bRPC_TIMEOUT_MS=.*$/m, '');
    expect(checkEnvExample(broken, compose(), ctx)).toContain(
      '.env.example does not list RPC_TIMEOUT_MS (a setting of libs/config/index.ts)',
    );
    const newVariable = compose();
    newVariable.services.redis = { ...newVariable.services.redis, ports: ['${REDIS_PORT:-6379}'] };
    expect(checkEnvExample(envExampleText, newVariable, ctx)).toContain(
      '.env.example does not list REDIS_PORT (read by docker-compose.yml)',
    );
    const noTracing = envExampleText.replace(/^.*\bOTEL_SERVICE_NAME=.*$/m, '');
    expect(checkEnvExample(noTracing, compose(), ctx)).toContain(
      '.env.example does not list OTEL_SERVICE_NAME (a setting of libs/config/index.ts)',
    );
  });

  test('a default that is not the one that applies is caught', () => {
    const composeDefault = envExampleText.replace(/^(#\s*)?GATEWAY_PORTS=.*$/m, 'GATEWAY_PORTS=80');
    expect(checkEnvExample(composeDefault, compose(), ctx)).toContain(
      '.env.example: GATEWAY_PORTS=80, but its default is "8080-8089"',
    );
    const codeDefault = envExampleText.replace(/^(#\s*)?HOST=.*$/m, '# HOST=0.0.0.0');
    expect(checkEnvExample(codeDefault, compose(), ctx)).toContain(
      '.env.example: HOST=0.0.0.0, but its default is "127.0.0.1"',
    );
    const twice = `${envExampleText}\n# LOG_LEVEL=info\n`;
    expect(checkEnvExample(twice, compose(), ctx)).toContain(
      '.env.example: LOG_LEVEL is listed twice',
    );
  });
});

describe('infra/Dockerfile', () => {
  test('follows every rule', () => {
    expect(checkDockerfile(dockerfileText, ctx)).toEqual([]);
  });

  test('the build context leaves out host dependencies and build output, not build inputs', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist']));
    for (const input of ctx.buildInputs) expect(ignored).not.toContain(input);
  });

  test('the build context leaves out .env and .env.example', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.env', '.env.*']));
  });

  test('a build input left out of the image is caught', () => {
    const broken = dockerfileText.replace(/^COPY libs .*$/m, '');
    expect(checkDockerfile(broken, ctx)).toContain('the build stage does not copy libs');
  });

  test('a Dockerfile that does not build dist is caught', () => {
    const broken = dockerfileText.replace(/^RUN npm run build$/m, '');
    expect(checkDockerfile(broken, ctx)).toContain('no stage runs npm run build');
  });

  test('dev dependencies in the runtime image are caught', () => {
    const broken = dockerfileText.replace(/npm ci --omit=dev/, 'npm ci');
    expect(checkDockerfile(broken, ctx)).toContain(
      'the runtime stage does not install with npm ci --omit=dev',
    );
  });

  test('running as root is caught', () => {
    expect(checkDockerfile(dockerfileText.replace(/^USER .*$/m, 'USER root'), ctx)).toContain(
      'the image runs as root',
    );
    expect(checkDockerfile(dockerfileText.replace(/^USER .*$/m, ''), ctx)).toContain(
      'the image runs as root',
    );
  });

  test('an image whose services would listen on loopback only is caught', () => {
    const broken = dockerfileText.replace(/HOST=0\.0\.0\.0/, 'HOST=127.0.0.1');
    expect(checkDockerfile(broken, ctx)).toContain('the image does not set HOST=0.0.0.0');
  });

  test('a single-stage image is caught', () => {
    const single = dockerfileText.replace(/^FROM .* AS runtime$/m, '');
    expect(checkDockerfile(single, ctx)).toEqual(
      expect.arrayContaining(['the runtime stage is the build stage']),
    );
  });
});
