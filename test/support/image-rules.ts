/**
 * The rules .env.example and infra/Dockerfile keep: .env.example lists every variable with the
 * default that applies; the image is built in stages from the pinned base, compiles what the
 * build reads, installs no dev dependencies, listens beyond loopback and does not run as root.
 */
import {
  BASE_IMAGE,
  interpolations,
  type Compose,
  type Context,
  type Interpolation,
} from './compose-files.js';

export function envExampleEntries(text: string): {
  entries: Map<string, string>;
  repeated: string[];
} {
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
export function checkEnvExample(text: string, compose: Compose, ctx: Context): string[] {
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

export function checkDockerfile(text: string, ctx: Context): string[] {
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
