import { loadConfig } from '../../libs/config/index.js';
import {
  DOCKERFILE,
  durationSeconds,
  environment,
  fixedHostPorts,
  interpolations,
  isOneShot,
  parseCompose,
  read,
  realContext,
  type Service,
} from '../support/compose-files.js';
import { checkCompose } from '../support/compose-rules.js';
import { checkDockerfile, checkEnvExample, envExampleEntries } from '../support/image-rules.js';
import { processes } from '../support/process-settings.js';

/**
 * Docker Compose cannot run on CI, so docker-compose.yml, infra/Dockerfile and .env.example are
 * checked against the code they start: every entry point has a service, every variable is a real
 * setting, every setting an entry point requires is given, every service reports its health and
 * waits for what it uses, the scalable services can scale and stop gracefully, and .env.example
 * lists every variable with its default. Each rule is a function returning problems, run on the
 * real files and on broken copies (so it can fail).
 */

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

  test('the Sparkle key reaches the download service from .env, optional, and a key written into the file is caught', () => {
    expect(environment(compose().services.download ?? {}).get('SPARKLE_PRIVATE_KEY')).toBe(
      '${SPARKLE_PRIVATE_KEY:-}',
    );
    const broken = compose();
    broken.services.download = withEnv(broken.services.download, {
      SPARKLE_PRIVATE_KEY: 'nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=',
    });
    expect(checkCompose(broken, ctx)).toContain(
      'download: SPARKLE_PRIVATE_KEY must come from ${SPARKLE_PRIVATE_KEY:-}, not the file',
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
