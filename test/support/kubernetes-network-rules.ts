/**
 * The rules of the manifests' Services and network policies: each Service selects one
 * Deployment's pods and a port of them; only the gateway and management take traffic from outside
 * the cluster, and only they reach the download service's byte port.
 */
import type { IDeployment } from 'kubernetes-models/apps/v1';
import {
  Ingress,
  NetworkPolicy,
  type INetworkPolicy,
} from 'kubernetes-models/networking.k8s.io/v1';
import { Service } from 'kubernetes-models/v1';
import {
  BYTE_PORT_CLIENTS,
  containersOf,
  podLabels,
  PUBLIC,
  selects,
  type KubeObject,
  type Source,
} from './kubernetes-objects.js';

export function serviceProblems(
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
export interface Admitted {
  outside: boolean;
  /** From outside, but only from namespaces chosen by their labels (the monitoring one). */
  namespaces: boolean;
  services: Set<string>;
}

/**
 * The network policies, as Kubernetes applies them to one port of one service's pods: none
 * selecting the pods lets everything in; otherwise what some rule of one of them lets in.
 */
export function admitted(
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

export function networkProblems(
  objects: KubeObject[],
  byService: Map<string, IDeployment>,
): string[] {
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
