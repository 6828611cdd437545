/**
 * The rules docker-compose.yml keeps (docs/operations.md): every entry point has a service that
 * runs it, every variable is a real setting and every required one is given, every service
 * reports its health and waits for what it uses, the scalable services can scale and stop
 * gracefully, secrets come from the operator, data is on named volumes. Each rule returns its
 * problems, so the tests run it on the real file and on broken copies.
 */
import {
  buildsFromDockerfile,
  commandScript,
  commandText,
  DATA_DIRECTORIES,
  dependencies,
  DOCKERFILE,
  durationSeconds,
  environment,
  fixedHostPorts,
  hasHealthcheck,
  healthcheckText,
  interpolations,
  isOneShot,
  MIN_STOP_GRACE_SECONDS,
  profiles,
  SCALABLE,
  OPTIONAL_SECRETS,
  SECRETS,
  urlHost,
  type Compose,
  type Context,
} from './compose-files.js';

export function checkCompose(compose: Compose, ctx: Context): string[] {
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
    for (const secret of OPTIONAL_SECRETS) {
      const value = env.get(secret);
      if (value !== undefined && value !== `\${${secret}:-}`) {
        problems.push(`${name}: ${secret} must come from \${${secret}:-}, not the file`);
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
