import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap } from 'kubernetes-models/v1';
import { admitted } from '../support/kubernetes-network-rules.js';
import {
  BASE,
  containersOf,
  kubectl,
  OVERLAY,
  realContext,
  render,
  schemaProblems,
  type KubeObject,
  type Labels,
} from '../support/kubernetes-objects.js';
import { checkManifests } from '../support/kubernetes-rules.js';

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

  test('the Sparkle key reaches the download service alone, from the Secret when it holds one', () => {
    const given = (name: string) =>
      container(rendered, name).env?.find((v) => v.name === 'SPARKLE_PRIVATE_KEY');
    expect(given('download')?.valueFrom?.secretKeyRef).toEqual({
      name: 'licensing-secrets',
      key: 'SPARKLE_PRIVATE_KEY',
      optional: true,
    });
    for (const name of [
      'gateway',
      'management',
      'license',
      'update-catalog',
      'webhooks',
      'stores',
    ]) {
      expect(given(name)).toBeUndefined();
    }
    const broken = copy();
    delete container(broken, 'download').env!.find((v) => v.name === 'SPARKLE_PRIVATE_KEY')!
      .valueFrom!.secretKeyRef!.optional;
    expect(checkManifests(broken, ctx)).toContain(
      'download/download: SPARKLE_PRIVATE_KEY may be left out of the Secret, but its secretKeyRef is not optional',
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
