import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import {
  Ingress,
  NetworkPolicy,
  type INetworkPolicy,
} from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service, type IContainer } from 'kubernetes-models/v1';
import { configVariables, loadConfig, settingFiles } from '../../libs/config/index.js';
import {
  entryPoints,
  processOf,
  requiredSettings,
  settingsRead,
} from '../support/process-settings.js';

/**
 * infra/kubernetes rendered offline as an operator renders it (`kubectl kustomize`), every object
 * checked against the Kubernetes API's schema (kubernetes-models), then against the rules the
 * system needs: each entry point has its Deployment, running the one image with probes on the
 * operations port, limits, an unprivileged read-only container and a stop that lets the graceful
 * stop finish; every setting it needs reaches it, secrets only from the Secret and only where
 * they are read; a disruption budget and a CPU autoscaler for each; and network policies that let
 * only the gateway and management take traffic from outside, and only they reach the download
 * service's byte port. Each rule is a function returning problems, run on the rendered files and
 * on broken copies of them (so it can fail).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const BASE = 'infra/kubernetes/base';
const OVERLAY = 'infra/kubernetes/overlays/example';

/** A graceful stop ends within 30 s (libs/process); the grace period leaves 5 s more. */
const GRACEFUL_STOP_SECONDS = 30;
const STOP_MARGIN_SECONDS = 5;
/** Settings that are secrets, or URLs that carry credentials: from the Secret, never written here. */
const SECRET_SETTINGS = new Set([
  'ADMIN_TOKENS',
  'DOWNLOAD_SIGNING_KEY',
  'SIGNING_KEY',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'AMQP_URL',
  'MONGODB_URL',
  'REDIS_URL',
]);
/** The settings of the ports a process listens on: each is a port of its container. */
const PORT_SETTINGS = ['PORT', 'ADMIN_PORT', 'DOWNLOAD_PORT', 'METRICS_PORT'];
/** The services that take traffic from outside the cluster: the two HTTP APIs. */
const PUBLIC = new Set(['gateway', 'management']);
/** Who may reach the download service's byte port (uploads, links handed on). */
const BYTE_PORT_CLIENTS = ['gateway', 'management'];
/** The one service whose old and new replicas must not run together (docs/operations.md). */
const RECREATED = new Set(['license']);
const PART_OF = { 'app.kubernetes.io/part-of': 'licensing' };

/** kubectl on this machine, or why there is none (nothing is installed from outside). */
function findKubectl(): { ok: true } | { ok: false; why: string } {
  const run = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (run.error) return { ok: false, why: `kubectl is not on PATH (${run.error.message})` };
  if (run.status !== 0) return { ok: false, why: `kubectl version --client failed: ${run.stderr}` };
  return { ok: true };
}
const kubectl = findKubectl();

type KubeObject = { apiVersion: string; kind: string; metadata?: { name?: string } } & Record<
  string,
  unknown
>;

/** `kubectl kustomize <dir>`: the objects it renders. */
function render(dir: string): KubeObject[] {
  const run = spawnSync('kubectl', ['kustomize', dir], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${run.stderr}`);
  return parseAllDocuments(run.stdout).map((doc) => doc.toJS() as KubeObject);
}

// ---- The schema of every object ----

/** The models of the kinds the manifests use: each validates an object against its schema. */
const models = [
  Deployment,
  Service,
  ConfigMap,
  Namespace,
  PodDisruptionBudget,
  HorizontalPodAutoscaler,
  NetworkPolicy,
  Ingress,
];

function schemaProblems(object: KubeObject): string[] {
  const name = `${object.kind} ${object.metadata?.name ?? '(no name)'}`;
  const Model = models.find((m) => m.apiVersion === object.apiVersion && m.kind === object.kind);
  if (!Model) return [`${name}: ${object.apiVersion} ${object.kind} has no schema here`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (error) {
    return [`${name}: ${(error as Error).message}`];
  }
}

// ---- Reading the objects ----

type Labels = Record<string, string>;
type LabelSelector = { matchLabels?: Labels; matchExpressions?: unknown[] } | undefined;

/** Whether `selector` selects `labels` (only matchLabels is used, and said when it is not). */
function selects(selector: LabelSelector, labels: Labels): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

const podLabels = (d: IDeployment): Labels => d.spec?.template.metadata?.labels ?? {};
const containersOf = (d: IDeployment): IContainer[] => d.spec?.template.spec?.containers ?? [];
/** The entry point a container runs: `node dist/services/<name>/main.js`. */
function entryPointOf(container: IContainer): string | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  return words
    .map((w) => /^dist\/services\/([^/]+)\/main\.js$/.exec(w)?.[1])
    .find((name) => name !== undefined);
}

/** Where a setting of a container comes from. */
type Source =
  | { from: 'value'; value: string }
  | { from: 'config-map'; value: string | undefined }
  | { from: 'secret' }
  | { from: 'other' };

/** A container's environment: explicit `env` first, then each `envFrom` ConfigMap's keys. */
function environmentOf(
  container: IContainer,
  configMaps: Map<string, Labels>,
  problems: string[],
  who: string,
): Map<string, Source> {
  const env = new Map<string, Source>();
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) problems.push(`${who}: takes a whole Secret (envFrom); name each secret`);
    const name = from.configMapRef?.name;
    if (name === undefined) continue;
    const data = configMaps.get(name);
    if (!data) problems.push(`${who}: reads ConfigMap ${name}, which is not rendered`);
    for (const [key, value] of Object.entries(data ?? {})) {
      env.set(key, { from: 'config-map', value });
    }
  }
  for (const variable of container.env ?? []) {
    const source: Source =
      variable.value !== undefined
        ? { from: 'value', value: variable.value }
        : variable.valueFrom?.secretKeyRef
          ? { from: 'secret' }
          : variable.valueFrom?.configMapKeyRef
            ? {
                from: 'config-map',
                value: configMaps.get(variable.valueFrom.configMapKeyRef.name ?? '')?.[
                  variable.valueFrom.configMapKeyRef.key
                ],
              }
            : { from: 'other' };
    env.set(variable.name, source);
  }
  return env;
}

interface Context {
  entryPoints: string[];
  configKeys: Set<string>;
  /** What loadConfig gives each setting when nothing is set. */
  defaults: Record<string, unknown>;
  requiredSettings: Record<string, string[]>;
  settingsRead: Record<string, string[]>;
}

function realContext(): Context {
  const names = entryPoints();
  return {
    entryPoints: names,
    configKeys: new Set(configVariables),
    defaults: loadConfig({}),
    requiredSettings: Object.fromEntries(names.map((n) => [n, requiredSettings(processOf(n))])),
    settingsRead: Object.fromEntries(names.map((n) => [n, settingsRead(processOf(n))])),
  };
}

/** A setting given to a container, or the file setting that stands for it (SIGNING_KEY_FILE). */
function fileSettingOf(setting: string): string | undefined {
  return (settingFiles as Record<string, string>)[setting];
}

// ---- The rules ----

function checkManifests(objects: KubeObject[], ctx: Context): string[] {
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

/** Services select one Deployment's pods and a port of them; DOWNLOAD_SERVICE_URL names one. */
function serviceProblems(
  objects: KubeObject[],
  deployments: IDeployment[],
  byService: Map<string, IDeployment>,
  given: Map<string, Map<string, Source>>,
): string[] {
  const problems: string[] = [];
  const services = objects.filter((o) => Service.is(o));
  for (const service of services) {
    if (!Service.is(service)) continue;
    const name = service.metadata?.name;
    const selected = deployments.filter((d) =>
      selects({ matchLabels: service.spec?.selector }, podLabels(d)),
    );
    if (selected.length !== 1) {
      problems.push(`Service ${name}: selects the pods of ${selected.length} Deployments`);
      continue;
    }
    const ports = containersOf(selected[0]!).flatMap((c) => c.ports ?? []);
    for (const port of service.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      if (!ports.some((p) => p.name === target || p.containerPort === target)) {
        problems.push(`Service ${name}: targets port ${target}, which its pods do not have`);
      }
    }
  }
  const url = [...given.values()]
    .map((env) => env.get('DOWNLOAD_SERVICE_URL'))
    .find((s) => s?.from === 'config-map' || s?.from === 'value');
  const address = url && 'value' in url ? /^https?:\/\/([^:/]+):(\d+)/.exec(url.value ?? '') : null;
  const download = byService.get('download');
  const target = services.find((s) => s.metadata?.name === address?.[1]);
  const reaches =
    download &&
    target &&
    Service.is(target) &&
    selects({ matchLabels: target.spec?.selector }, podLabels(download)) &&
    target.spec?.ports?.some((p) => p.port === Number(address?.[2]));
  if (!reaches) problems.push('DOWNLOAD_SERVICE_URL does not name a Service of the download pods');
  for (const ingress of objects.filter((o) => Ingress.is(o))) {
    if (!Ingress.is(ingress)) continue;
    const backends = (ingress.spec?.rules ?? []).flatMap((rule) =>
      (rule.http?.paths ?? []).map((p) => p.backend.service?.name),
    );
    for (const backend of backends) {
      if (!backend || !PUBLIC.has(backend)) {
        problems.push(`Ingress ${ingress.metadata?.name}: routes to ${backend}, not a public API`);
      }
    }
  }
  return problems;
}

/** Who a port admits: any source from outside the namespace, and which services' pods. */
interface Admitted {
  outside: boolean;
  /** From outside, but only from namespaces chosen by their labels (the monitoring one). */
  namespaces: boolean;
  services: Set<string>;
}

/**
 * The network policies, as Kubernetes applies them to one port of one service's pods: none
 * selecting the pods lets everything in; otherwise what some rule of one of them lets in.
 */
function admitted(
  policies: INetworkPolicy[],
  byService: Map<string, IDeployment>,
  service: string,
  port: { name?: string; containerPort: number },
): Admitted | 'unrestricted' {
  const labels = podLabels(byService.get(service)!);
  const applying = policies.filter(
    (p) =>
      selects(p.spec?.podSelector, labels) &&
      (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress'),
  );
  if (applying.length === 0) return 'unrestricted';
  const result: Admitted = { outside: false, namespaces: false, services: new Set() };
  for (const policy of applying) {
    for (const rule of policy.spec?.ingress ?? []) {
      const matches =
        !rule.ports ||
        rule.ports.length === 0 ||
        rule.ports.some(
          (p) => p.port === undefined || p.port === port.name || p.port === port.containerPort,
        );
      if (!matches) continue;
      if (!rule.from || rule.from.length === 0) {
        result.outside = true;
        continue;
      }
      for (const peer of rule.from) {
        if (peer.ipBlock) result.outside = true;
        else if (peer.namespaceSelector) {
          if (Object.keys(peer.namespaceSelector.matchLabels ?? {}).length === 0) {
            result.outside = true;
          } else result.namespaces = true;
        } else {
          for (const [name, deployment] of byService) {
            if (selects(peer.podSelector, podLabels(deployment))) result.services.add(name);
          }
        }
      }
    }
  }
  return result;
}

function networkProblems(objects: KubeObject[], byService: Map<string, IDeployment>): string[] {
  const problems: string[] = [];
  const policies = objects.filter((o): o is KubeObject & INetworkPolicy => NetworkPolicy.is(o));
  for (const policy of policies) {
    const selectors = [
      policy.spec?.podSelector,
      ...(policy.spec?.ingress ?? []).flatMap((r) =>
        (r.from ?? []).flatMap((p) => [p.podSelector, p.namespaceSelector]),
      ),
    ];
    if (selectors.some((s) => s?.matchExpressions !== undefined)) {
      problems.push(
        `NetworkPolicy ${policy.metadata?.name}: matchExpressions are not checked here`,
      );
    }
  }
  for (const [service, deployment] of byService) {
    for (const port of containersOf(deployment).flatMap((c) => c.ports ?? [])) {
      const where = `${service} port ${port.name ?? port.containerPort}`;
      const allowed = admitted(policies, byService, service, port);
      if (allowed === 'unrestricted') {
        problems.push(`${where}: no NetworkPolicy selects its pods, so anything reaches it`);
        continue;
      }
      const operations = port.name === 'ops';
      if (operations) {
        if (allowed.outside || allowed.services.size > 0) {
          problems.push(
            `${where}: the operations port is open to more than the monitoring namespace`,
          );
        }
        continue;
      }
      if ((allowed.outside || allowed.namespaces) && !PUBLIC.has(service)) {
        problems.push(
          `${where}: takes traffic from outside, which only ${[...PUBLIC].join(' and ')} may`,
        );
      }
      if (service === 'download') {
        const clients = [...allowed.services].sort();
        if (clients.join() !== [...BYTE_PORT_CLIENTS].sort().join()) {
          problems.push(
            `${where}: reached by ${clients.join(', ') || 'no service'}, not by ${BYTE_PORT_CLIENTS.join(' and ')} alone`,
          );
        }
      }
    }
  }
  return problems;
}

// ---- The tests ----

const ctx = realContext();

if (!kubectl.ok) {
  // Nothing is installed from outside: without kubectl the manifests are not rendered.
  process.stderr.write(`test/unit/kubernetes.test.ts: skipped, ${kubectl.why}\n`);
  test.skip(`infra/kubernetes (skipped: ${kubectl.why})`, () => {});
}
const withKubectl = kubectl.ok ? describe : describe.skip;

withKubectl('infra/kubernetes, rendered by kubectl kustomize', () => {
  const base = () => render(BASE);
  let rendered: KubeObject[];
  beforeAll(() => {
    rendered = base();
  });
  const copy = () => structuredClone(rendered);
  const deployment = (objects: KubeObject[], name: string) =>
    objects.find((o) => Deployment.is(o) && o.metadata?.name === name) as KubeObject & IDeployment;
  const container = (objects: KubeObject[], name: string) =>
    deployment(objects, name).spec!.template.spec!.containers[0]!;

  test('the base follows every rule', () => {
    expect(checkManifests(rendered, ctx)).toEqual([]);
  });

  test('the example overlay follows every rule', () => {
    const overlay = render(OVERLAY);
    expect(checkManifests(overlay, ctx)).toEqual([]);
    const images = new Set(
      overlay.filter((o) => Deployment.is(o)).flatMap((d) => containersOf(d).map((c) => c.image)),
    );
    expect([...images]).toEqual(['registry.example.com/licensing-service:0.1.0']);
  });

  test('every entry point has its Deployment, and every kind rendered has a schema here', () => {
    const names = rendered.filter((o) => Deployment.is(o)).map((o) => o.metadata?.name);
    expect(names.sort()).toEqual(ctx.entryPoints);
    expect(rendered.flatMap(schemaProblems)).toEqual([]);
  });

  test('an object off its schema is caught', () => {
    const broken = copy();
    (container(broken, 'gateway').ports![0] as { containerPort: unknown }).containerPort = 'http';
    (deployment(broken, 'license').spec as { replicas?: unknown }).replicas = 'two';
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Deployment gateway: .*containerPort must be integer/),
        expect.stringMatching(/^Deployment license: .*replicas must be integer/),
      ]),
    );
  });

  test('a container without probes, limits, or with another image is caught', () => {
    const broken = copy();
    delete container(broken, 'license').readinessProbe;
    container(broken, 'gateway').livenessProbe!.httpGet!.port = 'http';
    delete container(broken, 'webhooks').resources!.limits;
    container(broken, 'download').image = 'licensing-service:latest';
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license/license: readinessProbe is not GET /readyz on METRICS_PORT 9464',
        'gateway/gateway: livenessProbe is not GET /healthz on METRICS_PORT 9464',
        'webhooks/webhooks: no cpu in resources.limits',
        'webhooks/webhooks: no memory in resources.limits',
        'download/download: image licensing-service:latest has no release tag',
        'containers run different images: licensing-service:0.1.0, licensing-service:latest',
      ]),
    );
  });

  test('a container that may run as root, write its root filesystem or gain privileges is caught', () => {
    const broken = copy();
    delete deployment(broken, 'gateway').spec!.template.spec!.securityContext!.runAsNonRoot;
    container(broken, 'license').securityContext = { runAsUser: 0 };
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'gateway/gateway: runAsNonRoot is not true',
        'license/license: runAsUser is not a user id other than 0',
        'license/license: readOnlyRootFilesystem is not true',
        'license/license: allowPrivilegeEscalation is not false',
        'license/license: does not drop ALL capabilities',
      ]),
    );
  });

  test('a stop cut short of the graceful stop is caught', () => {
    const broken = copy();
    deployment(broken, 'gateway').spec!.template.spec!.terminationGracePeriodSeconds = 30;
    delete container(broken, 'download').lifecycle;
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'gateway/gateway: terminationGracePeriodSeconds 30 is under 40',
        'download/download: no preStop sleep',
      ]),
    );
  });

  test('a setting a service needs that does not reach it is caught', () => {
    const broken = copy();
    const license = container(broken, 'license');
    license.env = license.env!.filter((v) => v.name !== 'MONGODB_URL');
    const gateway = container(broken, 'gateway');
    gateway.env = gateway.env!.filter((v) => v.name !== 'SIGNING_KEY_FILE');
    // A setting given to one service and not to another that reads it.
    container(broken, 'update-catalog').env!.push({ name: 'LOG_LEVEL', value: 'debug' });
    delete container(broken, 'webhooks').envFrom;
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license/license: needs MONGODB_URL, which is not set',
        'gateway/gateway: needs SIGNING_KEY (or SIGNING_KEY_FILE), which is not set',
        'webhooks: reads LOG_LEVEL, which is given to other services but not to it',
        'webhooks: reads AMQP_QUEUE_TYPE, which is given to other services but not to it',
      ]),
    );
  });

  test('a secret written in the files, or given where it is not read, is caught', () => {
    const broken = copy();
    const configMap = broken.find((o) => ConfigMap.is(o)) as { data: Labels };
    configMap.data.ADMIN_TOKENS = 'secret';
    container(broken, 'download').env!.push({ name: 'S3_SECRET_KEY', value: 'minio-secret' });
    container(broken, 'gateway').env!.push({
      name: 'MONGODB_URL',
      valueFrom: { secretKeyRef: { name: 'licensing-secrets', key: 'MONGODB_URL' } },
    });
    container(broken, 'management').env!.push({ name: 'NOT_A_SETTING', value: '1' });
    const problems = checkManifests(broken, ctx);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ConfigMap licensing-settings-\w+: holds the secret ADMIN_TOKENS$/),
        'license/license: ADMIN_TOKENS must come from a Secret (secretKeyRef), not config-map',
        'download/download: S3_SECRET_KEY must come from a Secret (secretKeyRef), not value',
        'gateway/gateway: is given the secret MONGODB_URL, which gateway does not read',
        'management/management: NOT_A_SETTING is not a setting of libs/config/index.ts',
      ]),
    );
  });

  test('a signing key file outside a mounted Secret is caught', () => {
    const broken = copy();
    const pod = deployment(broken, 'management').spec!.template.spec!;
    pod.volumes = pod.volumes!.map((v) =>
      v.name === 'signing-key' ? { name: v.name, emptyDir: {} } : v,
    );
    expect(checkManifests(broken, ctx)).toContain(
      'management/management: SIGNING_KEY_FILE /var/run/secrets/licensing/signing-key.pem is not in a mounted Secret (SIGNING_KEY is secret)',
    );
  });

  test('ports that are not the ones a process listens on are caught', () => {
    const broken = copy();
    container(broken, 'gateway').ports![0]!.containerPort = 80;
    const configMap = broken.find((o) => ConfigMap.is(o)) as { data: Labels };
    configMap.data.DOWNLOAD_SERVICE_URL = 'http://downloads:8082';
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'gateway/gateway: port 80 is none gateway listens on',
        'gateway/gateway: PORT 8080 is not a port of the container',
        'DOWNLOAD_SERVICE_URL does not name a Service of the download pods',
      ]),
    );
  });

  test('a service without its disruption budget, autoscaler or scrape annotations is caught', () => {
    const broken = copy().filter(
      (o) =>
        !(PodDisruptionBudget.is(o) && o.metadata?.name === 'webhooks') &&
        !(HorizontalPodAutoscaler.is(o) && o.metadata?.name === 'update-catalog'),
    );
    deployment(broken, 'gateway').spec!.replicas = 3;
    delete deployment(broken, 'download').spec!.template.metadata!.annotations;
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'webhooks: no PodDisruptionBudget selects its pods',
        'update-catalog: no HorizontalPodAutoscaler on CPU from 2 replicas',
        'gateway: sets replicas, which its autoscaler sets',
        'download/download: no prometheus.io scrape annotations for :9464/metrics',
      ]),
    );
  });

  test('license replicas of two versions running together is caught', () => {
    const broken = copy();
    deployment(broken, 'license').spec!.strategy = { type: 'RollingUpdate' };
    expect(checkManifests(broken, ctx)).toContain(
      'license: strategy is RollingUpdate, not Recreate',
    );
  });

  test('only the gateway and management take traffic from outside', () => {
    const policies = rendered.filter((o): o is KubeObject & INetworkPolicy => NetworkPolicy.is(o));
    const byService = new Map(
      ctx.entryPoints.map((name) => [name, deployment(rendered, name)] as const),
    );
    const from = (service: string, port: string) => {
      const found = containersOf(byService.get(service)!)
        .flatMap((c) => c.ports ?? [])
        .find((p) => p.name === port)!;
      return admitted(policies, byService, service, found);
    };
    expect(from('gateway', 'http')).toMatchObject({ outside: true });
    expect(from('management', 'admin')).toMatchObject({ outside: true });
    expect(from('download', 'bytes')).toEqual({
      outside: false,
      namespaces: false,
      services: new Set(['gateway', 'management']),
    });
    for (const service of ctx.entryPoints) {
      expect(from(service, 'ops')).toEqual({
        outside: false,
        namespaces: true,
        services: new Set(),
      });
    }
  });

  test('a policy that opens another service, or the byte port to others, is caught', () => {
    const broken = copy();
    const policy = (name: string) =>
      broken.find((o) => NetworkPolicy.is(o) && o.metadata?.name === name) as KubeObject &
        INetworkPolicy;
    policy('download-byte-port').spec!.ingress![0]!.from!.push({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhooks' } },
    });
    broken.push({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'license-from-anywhere' },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'update-catalog' } },
        ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }],
      },
    });
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'download port bytes: reached by gateway, management, webhooks, not by gateway and management alone',
        'update-catalog port ops: the operations port is open to more than the monitoring namespace',
      ]),
    );
  });

  test('pods no policy selects, a byte port open to outside, and an Ingress to an internal service are caught', () => {
    const broken = copy().filter(
      (o) =>
        !(
          NetworkPolicy.is(o) &&
          ['licensing-default-deny', 'licensing-operations-port'].includes(o.metadata!.name!)
        ),
    );
    const bytes = broken.find(
      (o) => NetworkPolicy.is(o) && o.metadata?.name === 'download-byte-port',
    ) as KubeObject & INetworkPolicy;
    delete bytes.spec!.ingress![0]!.from;
    broken.push({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'downloads' },
      spec: {
        rules: [
          {
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'download', port: { number: 8082 } } },
                },
              ],
            },
          },
        ],
      },
    });
    expect(checkManifests(broken, ctx)).toEqual(
      expect.arrayContaining([
        'license port ops: no NetworkPolicy selects its pods, so anything reaches it',
        'download port bytes: takes traffic from outside, which only gateway and management may',
        'Ingress downloads: routes to download, not a public API',
      ]),
    );
  });
});
