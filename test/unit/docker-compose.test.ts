import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadConfig } from '../../libs/config/index.js';

/**
 * Docker Compose cannot run on CI, so docker-compose.yml and infra/Dockerfile are checked against
 * the code they start: every entry point has a service, every variable is a real setting, every
 * setting an entry point requires is given, and the scalable services can scale. Each rule is a
 * function returning problems, run on the real files and on broken copies (so it can fail).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const SCALABLE = ['license', 'update-catalog', 'download'];
const DOCKERFILE = 'infra/Dockerfile';
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

// ---- What the code says ----

/** Folders under services/ with an entry point of their own (all-in-one runs them all). */
function entryPoints(): string[] {
  return readdirSync(path.join(root, 'services'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'all-in-one')
    .filter((d) => existsSync(path.join(root, 'services', d.name, 'main.ts')))
    .map((d) => d.name)
    .sort();
}

/** The keys of EnvSchema in libs/config/index.ts, read from the source text. */
function configKeys(source: string): Set<string> {
  const body = /const EnvSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(source)?.[1];
  if (body === undefined) throw new Error('EnvSchema not found in libs/config/index.ts');
  return new Set([...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1] as string));
}

/**
 * The settings an entry point cannot start without: AMQP_URL when it opens a transport (no
 * in-process bus outside all-in-one), and whatever it passes to requireSetting.
 */
function requiredSettings(mainSource: string): string[] {
  const required = new Set<string>();
  if (mainSource.includes('createTransport(')) required.add('AMQP_URL');
  for (const m of mainSource.matchAll(/requireSetting\(\s*config\.([A-Z][A-Z0-9_]*)/g)) {
    required.add(m[1] as string);
  }
  for (const m of mainSource.matchAll(/requireSetting\([^,]*,\s*'([A-Z][A-Z0-9_]*)'/g)) {
    required.add(m[1] as string);
  }
  return [...required].sort();
}

interface Context {
  entryPoints: string[];
  /** What `npm ci && npm run build` reads: package files, tsconfigs, compiled folders. */
  buildInputs: string[];
  configKeys: Set<string>;
  requiredSettings: Record<string, string[]>;
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
    configKeys: configKeys(read('libs/config/index.ts')),
    requiredSettings: Object.fromEntries(
      names.map((n) => [n, requiredSettings(read(`services/${n}/main.ts`))]),
    ),
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

/** `"8080:8080"`, `"127.0.0.1:8080:8080"` or `{published: 8080}` fix a host port; `"8080"` does not. */
function fixedHostPorts(service: Service): string[] {
  const ports = Array.isArray(service.ports) ? service.ports : [];
  return ports
    .filter((p) => (isRecord(p) ? p.published !== undefined : String(p).includes(':')))
    .map((p) => JSON.stringify(p));
}

function hasHealthcheck(service: Service): boolean {
  const check = service.healthcheck;
  if (!isRecord(check) || check.disable === true) return false;
  const test = Array.isArray(check.test) ? check.test.map(String) : [String(check.test ?? '')];
  return test.length > 0 && test[0] !== 'NONE' && test.join('') !== '';
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
    const adminTokens = env.get('ADMIN_TOKENS');
    if (adminTokens !== undefined && !/^\$\{ADMIN_TOKENS:\?[^}]+\}$/.test(adminTokens)) {
      problems.push(`${name}: ADMIN_TOKENS must come from \${ADMIN_TOKENS:?...}, not the file`);
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

  for (const [name, service] of Object.entries(services)) {
    for (const [dep, condition] of dependencies(service)) {
      const target = services[dep];
      if (!target) problems.push(`${name}: depends on unknown service ${dep}`);
      else if (condition === 'service_healthy' && !hasHealthcheck(target)) {
        problems.push(`${name}: waits for ${dep} to be healthy, but ${dep} has no healthcheck`);
      }
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
  const mongoVolumes = Array.isArray(services.mongo?.volumes) ? services.mongo.volumes : [];
  const volumeName = mongoVolumes
    .map((v) => String(v).split(':'))
    .find(([, target]) => target === '/data/db')?.[0];
  if (!volumeName || !(volumeName in compose.volumes)) {
    problems.push('mongo: /data/db is not on a named volume');
  }
  return problems;
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

describe('the rules read the code', () => {
  test('the entry points are found', () => {
    expect(ctx.entryPoints).toEqual(
      expect.arrayContaining(['gateway', 'license', 'management', 'update-catalog', 'download']),
    );
  });

  test('the settings parsed from the source include every key loadConfig returns', () => {
    // loadConfig({}) omits optional URLs, so it is a lower bound on the parsed set.
    for (const key of Object.keys(loadConfig({}))) expect(ctx.configKeys).toContain(key);
    for (const key of ['AMQP_URL', 'MONGODB_URL', 'REDIS_URL', 'PUBLIC_URL']) {
      expect(ctx.configKeys).toContain(key);
    }
  });

  test('required settings are read from the entry points', () => {
    expect(ctx.requiredSettings.license).toEqual(['AMQP_URL', 'MONGODB_URL']);
    expect(ctx.requiredSettings['update-catalog']).toEqual(['AMQP_URL', 'MONGODB_URL']);
    expect(ctx.requiredSettings.gateway).toEqual(['AMQP_URL']);
    expect(ctx.requiredSettings.management).toEqual(['ADMIN_TOKENS', 'AMQP_URL']);
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
