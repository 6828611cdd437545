/**
 * The rules the Kubernetes manifests keep (docs/operations.md): each entry point has its
 * Deployment, running the one image with probes on the operations port, limits, an unprivileged
 * read-only container and a stop that lets the graceful stop finish; every setting it needs
 * reaches it, secrets only from the Secret and only where they are read; a disruption budget and
 * a CPU autoscaler for each. Each rule returns its problems, so the tests run it on the rendered
 * files and on broken copies of them.
 */
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap } from 'kubernetes-models/v1';
import { settingFiles } from '../../libs/config/index.js';
import {
  containersOf,
  entryPointOf,
  environmentOf,
  fileSettingOf,
  GRACEFUL_STOP_SECONDS,
  PART_OF,
  podLabels,
  PORT_SETTINGS,
  RECREATED,
  schemaProblems,
  OPTIONAL_SECRET_SETTINGS,
  SECRET_SETTINGS,
  selects,
  STOP_MARGIN_SECONDS,
  type Context,
  type KubeObject,
  type Labels,
  type Source,
} from './kubernetes-objects.js';
import { networkProblems, serviceProblems } from './kubernetes-network-rules.js';

export function checkManifests(objects: KubeObject[], ctx: Context): string[] {
  const problems = objects.flatMap(schemaProblems);
  const deployments = objects.filter((o): o is KubeObject & IDeployment => Deployment.is(o));
  const configMaps = new Map(
    objects
      .filter((o) => ConfigMap.is(o))
      .map((o) => [o.metadata?.name ?? '', (o as { data?: Labels }).data ?? {}] as const),
  );
  const byService = new Map<string, IDeployment>();
  const images = new Set<string>();
  /** Every setting given to an application container, and its value where it is written. */
  const given = new Map<string, Map<string, Source>>();

  for (const name of ctx.entryPoints) {
    const found = deployments.filter((d) => containersOf(d).some((c) => entryPointOf(c) === name));
    if (found.length !== 1) {
      problems.push(`services/${name}/main.ts runs in ${found.length} Deployments, not one`);
    }
    if (found[0]) byService.set(name, found[0]);
  }

  for (const deployment of deployments) {
    const dname = deployment.metadata?.name ?? '(no name)';
    const pod = deployment.spec?.template.spec;
    const containers = containersOf(deployment);
    if (containers.length !== 1) problems.push(`${dname}: has ${containers.length} containers`);
    const labels = podLabels(deployment);
    if (!selects({ matchLabels: PART_OF }, labels)) {
      problems.push(`${dname}: its pods are not labelled app.kubernetes.io/part-of: licensing`);
    }
    if (!selects(deployment.spec?.selector, labels)) {
      problems.push(`${dname}: its selector does not select its own pods`);
    }
    for (const container of containers) {
      const who = `${dname}/${container.name}`;
      const service = entryPointOf(container);
      if (!service || !ctx.entryPoints.includes(service)) {
        problems.push(`${who}: runs no services/<name>/main.ts (dist/services/<name>/main.js)`);
        continue;
      }
      const image = container.image ?? '';
      images.add(image);
      const tag = /:([^/:@]+)$/.exec(image)?.[1];
      if (tag === undefined || tag === 'latest') {
        problems.push(`${who}: image ${image || '(none)'} has no release tag`);
      }

      const env = environmentOf(container, configMaps, problems, who);
      given.set(service, env);
      const valueOf = (setting: string): unknown => {
        const source = env.get(setting);
        if (source?.from === 'value' || source?.from === 'config-map') return source.value;
        return source ? undefined : ctx.defaults[setting];
      };

      // Settings: real ones, the required ones, secrets from the Secret and only where read.
      for (const [key, source] of env) {
        if (!ctx.configKeys.has(key)) {
          problems.push(`${who}: ${key} is not a setting of libs/config/index.ts`);
        }
        if (SECRET_SETTINGS.has(key) && source.from !== 'secret') {
          problems.push(
            `${who}: ${key} must come from a Secret (secretKeyRef), not ${source.from}`,
          );
        }
        if (OPTIONAL_SECRET_SETTINGS.has(key) && source.from === 'secret' && !source.optional) {
          problems.push(
            `${who}: ${key} may be left out of the Secret, but its secretKeyRef is not optional`,
          );
        }
        if (SECRET_SETTINGS.has(key) && !ctx.settingsRead[service]?.includes(key)) {
          problems.push(`${who}: is given the secret ${key}, which ${service} does not read`);
        }
      }
      for (const key of ctx.requiredSettings[service] ?? []) {
        const file = fileSettingOf(key);
        if (!env.has(key) && !(file && env.has(file))) {
          problems.push(`${who}: needs ${key}${file ? ` (or ${file})` : ''}, which is not set`);
        }
      }
      // A setting read from a file: the file is a mounted Secret.
      for (const [setting, file] of Object.entries(settingFiles)) {
        const at = valueOf(file);
        if (typeof at !== 'string' || at === '') continue;
        const mount = (container.volumeMounts ?? []).find((m) => at.startsWith(`${m.mountPath}/`));
        const volume = pod?.volumes?.find((v) => v.name === mount?.name);
        if (!volume?.secret) {
          problems.push(`${who}: ${file} ${at} is not in a mounted Secret (${setting} is secret)`);
        }
      }

      // Ports: each port a process listens on is a port of its container, and no other.
      const listens = new Map(
        PORT_SETTINGS.filter((s) => ctx.settingsRead[service]?.includes(s)).map((s) => [
          Number(valueOf(s)),
          s,
        ]),
      );
      const ports = container.ports ?? [];
      for (const port of ports) {
        if (!listens.has(port.containerPort)) {
          problems.push(`${who}: port ${port.containerPort} is none ${service} listens on`);
        }
      }
      for (const [number, setting] of listens) {
        if (!ports.some((p) => p.containerPort === number)) {
          problems.push(`${who}: ${setting} ${number} is not a port of the container`);
        }
      }
      const metricsPort = Number(valueOf('METRICS_PORT'));
      const portNumber = (port: number | string | undefined) =>
        typeof port === 'number' ? port : ports.find((p) => p.name === port)?.containerPort;

      // Probes: alive on /healthz, ready on /readyz, both on the operations port.
      for (const [probe, path] of [
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ] as const) {
        const get = container[probe]?.httpGet;
        if (get?.path !== path || portNumber(get.port) !== metricsPort) {
          problems.push(`${who}: ${probe} is not GET ${path} on METRICS_PORT ${metricsPort}`);
        }
      }

      // Resources: requests and limits of CPU and memory.
      for (const kind of ['requests', 'limits'] as const) {
        for (const resource of ['cpu', 'memory']) {
          if (container.resources?.[kind]?.[resource] === undefined) {
            problems.push(`${who}: no ${resource} in resources.${kind}`);
          }
        }
      }

      // An unprivileged, read-only container.
      const own = container.securityContext ?? {};
      const podContext = pod?.securityContext ?? {};
      if ((own.runAsNonRoot ?? podContext.runAsNonRoot) !== true) {
        problems.push(`${who}: runAsNonRoot is not true`);
      }
      const user = own.runAsUser ?? podContext.runAsUser;
      if (user === undefined || user === 0) {
        problems.push(`${who}: runAsUser is not a user id other than 0`);
      }
      if (own.readOnlyRootFilesystem !== true) {
        problems.push(`${who}: readOnlyRootFilesystem is not true`);
      }
      if (own.allowPrivilegeEscalation !== false) {
        problems.push(`${who}: allowPrivilegeEscalation is not false`);
      }
      if (own.privileged === true) problems.push(`${who}: is privileged`);
      if (!own.capabilities?.drop?.includes('ALL')) {
        problems.push(`${who}: does not drop ALL capabilities`);
      }

      // The stop: preStop, then the graceful stop, within the grace period.
      const preStop = container.lifecycle?.preStop;
      const words = preStop?.exec?.command ?? [];
      const preStopSeconds =
        preStop?.sleep?.seconds ?? (words[0] === 'sleep' ? Number(words[1]) : undefined);
      if (preStopSeconds === undefined || Number.isNaN(preStopSeconds)) {
        problems.push(`${who}: no preStop sleep`);
      }
      const needed = (preStopSeconds ?? 0) + GRACEFUL_STOP_SECONDS + STOP_MARGIN_SECONDS;
      const grace = pod?.terminationGracePeriodSeconds ?? 30;
      if (grace < needed) {
        problems.push(`${who}: terminationGracePeriodSeconds ${grace} is under ${needed}`);
      }

      // Prometheus finds the operations port.
      const annotations = deployment.spec?.template.metadata?.annotations ?? {};
      if (
        annotations['prometheus.io/scrape'] !== 'true' ||
        annotations['prometheus.io/port'] !== String(metricsPort) ||
        annotations['prometheus.io/path'] !== '/metrics'
      ) {
        problems.push(`${who}: no prometheus.io scrape annotations for :${metricsPort}/metrics`);
      }
    }

    // Stateless: a disruption budget and a CPU autoscaler, which sets the replica count.
    const budgets = objects.filter(
      (o) => PodDisruptionBudget.is(o) && selects(o.spec?.selector, labels),
    );
    if (budgets.length === 0) problems.push(`${dname}: no PodDisruptionBudget selects its pods`);
    const scalers = objects.filter(
      (o) =>
        HorizontalPodAutoscaler.is(o) &&
        o.spec?.scaleTargetRef.kind === 'Deployment' &&
        o.spec.scaleTargetRef.name === dname,
    );
    const cpu = scalers.some(
      (o) =>
        HorizontalPodAutoscaler.is(o) &&
        (o.spec?.minReplicas ?? 1) >= 2 &&
        o.spec?.metrics?.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'),
    );
    if (!cpu) problems.push(`${dname}: no HorizontalPodAutoscaler on CPU from 2 replicas`);
    if (deployment.spec?.replicas !== undefined) {
      problems.push(`${dname}: sets replicas, which its autoscaler sets`);
    }
  }

  if (images.size > 1)
    problems.push(`containers run different images: ${[...images].sort().join(', ')}`);

  // A setting given to one service reaches every service that reads it.
  const passed = new Set([...given.values()].flatMap((env) => [...env.keys()]));
  for (const [service, env] of given) {
    for (const key of ctx.settingsRead[service] ?? []) {
      if (passed.has(key) && !env.has(key) && !SECRET_SETTINGS.has(key)) {
        problems.push(`${service}: reads ${key}, which is given to other services but not to it`);
      }
    }
  }
  for (const [name, data] of configMaps) {
    for (const key of Object.keys(data)) {
      if (SECRET_SETTINGS.has(key)) problems.push(`ConfigMap ${name}: holds the secret ${key}`);
    }
  }
  for (const service of RECREATED) {
    const strategy = byService.get(service)?.spec?.strategy?.type;
    if (strategy !== 'Recreate') {
      problems.push(`${service}: strategy is ${strategy ?? 'RollingUpdate'}, not Recreate`);
    }
  }

  problems.push(...serviceProblems(objects, deployments, byService, given));
  problems.push(...networkProblems(objects, byService));
  return problems;
}
