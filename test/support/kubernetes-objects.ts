/**
 * What the Kubernetes checks read: infra/kubernetes rendered offline as an operator renders it
 * (`kubectl kustomize`), each object checked against the Kubernetes API's schema
 * (kubernetes-models), the Deployments' containers and environments read, and the code they run
 * (entry points, the settings each reads and requires).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service, type IContainer } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { configVariables, loadConfig, settingFiles } from '../../libs/config/index.js';
import { entryPoints, processOf, requiredSettings, settingsRead } from './process-settings.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const BASE = 'infra/kubernetes/base';
export const OVERLAY = 'infra/kubernetes/overlays/example';

/** A graceful stop ends within 30 s (libs/process); the grace period leaves 5 s more. */
export const GRACEFUL_STOP_SECONDS = 30;
export const STOP_MARGIN_SECONDS = 5;
/** Settings that are secrets, or URLs that carry credentials: from the Secret, never written here. */
export const SECRET_SETTINGS = new Set([
  'ADMIN_TOKENS',
  'DOWNLOAD_SIGNING_KEY',
  'SIGNING_KEY',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'AMQP_URL',
  'MONGODB_URL',
  'REDIS_URL',
  'SPARKLE_PRIVATE_KEY',
]);
/** Secrets a service does without (Redis counts alone, nothing is signed for Sparkle): optional. */
export const OPTIONAL_SECRET_SETTINGS = new Set(['REDIS_URL', 'SPARKLE_PRIVATE_KEY']);
/** The settings of the ports a process listens on: each is a port of its container. */
export const PORT_SETTINGS = ['PORT', 'ADMIN_PORT', 'DOWNLOAD_PORT', 'METRICS_PORT'];
/** The services that take traffic from outside the cluster: the two HTTP APIs. */
export const PUBLIC = new Set(['gateway', 'management']);
/** Who may reach the download service's byte port (uploads, links handed on). */
export const BYTE_PORT_CLIENTS = ['gateway', 'management'];
/** The one service whose old and new replicas must not run together (docs/operations.md). */
export const RECREATED = new Set(['license']);
export const PART_OF = { 'app.kubernetes.io/part-of': 'licensing' };

/** kubectl on this machine, or why there is none (nothing is installed from outside). */
function findKubectl(): { ok: true } | { ok: false; why: string } {
  const run = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (run.error) return { ok: false, why: `kubectl is not on PATH (${run.error.message})` };
  if (run.status !== 0) return { ok: false, why: `kubectl version --client failed: ${run.stderr}` };
  return { ok: true };
}
export const kubectl = findKubectl();

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string };
} & Record<string, unknown>;

/** `kubectl kustomize <dir>`: the objects it renders. */
export function render(dir: string): KubeObject[] {
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

export function schemaProblems(object: KubeObject): string[] {
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

export type Labels = Record<string, string>;
export type LabelSelector = { matchLabels?: Labels; matchExpressions?: unknown[] } | undefined;

/** Whether `selector` selects `labels` (only matchLabels is used, and said when it is not). */
export function selects(selector: LabelSelector, labels: Labels): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

export const podLabels = (d: IDeployment): Labels => d.spec?.template.metadata?.labels ?? {};
export const containersOf = (d: IDeployment): IContainer[] =>
  d.spec?.template.spec?.containers ?? [];
/** The entry point a container runs: `node dist/services/<name>/main.js`. */
export function entryPointOf(container: IContainer): string | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  return words
    .map((w) => /^dist\/services\/([^/]+)\/main\.js$/.exec(w)?.[1])
    .find((name) => name !== undefined);
}

/** Where a setting of a container comes from. */
export type Source =
  | { from: 'value'; value: string }
  | { from: 'config-map'; value: string | undefined }
  | { from: 'secret'; optional: boolean }
  | { from: 'other' };

/** A container's environment: explicit `env` first, then each `envFrom` ConfigMap's keys. */
export function environmentOf(
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
          ? { from: 'secret', optional: variable.valueFrom.secretKeyRef.optional === true }
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

export interface Context {
  entryPoints: string[];
  configKeys: Set<string>;
  /** What loadConfig gives each setting when nothing is set. */
  defaults: Record<string, unknown>;
  requiredSettings: Record<string, string[]>;
  settingsRead: Record<string, string[]>;
}

export function realContext(): Context {
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
export function fileSettingOf(setting: string): string | undefined {
  return (settingFiles as Record<string, string>)[setting];
}
