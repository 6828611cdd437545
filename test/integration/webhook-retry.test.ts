import type { WebhookDelivery, WebhookEndpointWithSecret } from '../../libs/contracts/index.js';
import { eventually } from '../support/eventually.js';
import { adminOf, bootSystem, type TestSystem } from '../support/system.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * docs/webhooks.md, "Guarantees": a delivery is attempted once at a time, a Retry included, on
 * two webhooks replicas (the retry may reach the one that is not sending), and its log records
 * every request its receiver got.
 */

let system: TestSystem;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [system, receiver] = await Promise.all([
    bootSystem({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { webhooksReplicas: 2 }),
    WebhookReceiver.start(),
  ]);
});
afterAll(async () => {
  await system?.stop();
  await receiver?.stop();
});

const { get, post } = adminOf(() => system);

async function listed(delivery: WebhookDelivery): Promise<WebhookDelivery> {
  const res = await get(`/webhooks/${delivery.endpoint_id}/deliveries`).expect(200);
  return (res.body.data.deliveries as WebhookDelivery[]).find((d) => d.id === delivery.id)!;
}

describe('Retry of a delivery (POST .../deliveries/{delivery_id}/retry)', () => {
  test('while an attempt is under way it is refused with 409 ATTEMPT_IN_PROGRESS and sends nothing; after it, it sends once more, and the log has every request', async () => {
    let answerFirst: (status: number) => void = () => {};
    receiver.answer = (_request, index) =>
      index === 0 ? new Promise<number>((resolve) => (answerFirst = resolve)) : 204;
    const endpoint = (await post('/webhooks', { url: receiver.url, events: ['*'] }).expect(201))
      .body.data as WebhookEndpointWithSecret;
    const queued = (await post(`/webhooks/${endpoint.id}/test`).expect(202)).body
      .data as WebhookDelivery;
    const retry = `/webhooks/${endpoint.id}/deliveries/${queued.id}/retry`;

    // The receiver holds the first request open.
    await receiver.waitFor((got) => got.length === 1);
    for (let i = 0; i < 3; i++) {
      const refused = await post(retry);
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'ATTEMPT_IN_PROGRESS']);
    }
    // The senders look for due deliveries every second: long enough for a second send to start.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(1);

    answerFirst(503);
    await eventually('the attempt is recorded', async () => {
      return (await listed(queued)).attempts.length === 1;
    });
    expect((await post(retry).expect(200)).body.data).toMatchObject({
      id: queued.id,
      status: 'pending',
    });
    await eventually('the retry is delivered', async () => {
      return (await listed(queued)).status === 'delivered';
    });
    expect((await listed(queued)).attempts.map((a) => a.status)).toEqual([503, 204]);
    expect(receiver.received.map((got) => got.id)).toEqual([queued.id, queued.id]);
  });
});
