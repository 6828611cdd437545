import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  domainEventData,
  domainEventTypes,
  Timestamp,
  WEBHOOK_TEST_EVENT,
  type DomainEventType,
} from '../../libs/contracts/index.js';

/** docs/webhooks.md, "Events": each event's heading and its example payload. */
function documentedExamples(): Map<string, unknown> {
  const text = readFileSync(path.join(process.cwd(), 'docs', 'webhooks.md'), 'utf8');
  const events = text.slice(text.indexOf('\n## Events'));
  const examples = new Map<string, unknown>();
  for (const match of events.matchAll(/^### ([a-z_.]+)\n[\s\S]*?```json\n([\s\S]*?)```/gm)) {
    examples.set(match[1]!, JSON.parse(match[2]!));
  }
  return examples;
}

describe('docs/webhooks.md documents every event with an example', () => {
  const examples = documentedExamples();

  test('every event type has an example, and nothing else does', () => {
    expect([...examples.keys()].sort()).toEqual([...domainEventTypes, WEBHOOK_TEST_EVENT].sort());
  });

  test.each(domainEventTypes.map((type) => [type]))(
    'the example of %s is a payload the service would send',
    (type: DomainEventType) => {
      const example = examples.get(type) as { type: string; timestamp: string; data: unknown };
      expect(Object.keys(example)).toEqual(['type', 'timestamp', 'data']);
      expect(example.type).toBe(type);
      expect(Timestamp.safeParse(example.timestamp).success).toBe(true);
      const parsed = domainEventData[type].strict().safeParse(example.data);
      expect(parsed.error?.issues ?? []).toEqual([]);
    },
  );
});
