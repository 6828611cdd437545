/**
 * PHPUnit's JUnit report (`--log-junit`), read for what a Jest test needs: each test case, and
 * whether it failed, erred or was skipped, with PHPUnit's message.
 */
export interface JunitCase {
  /** `Class::method`, with the data set's name when there is one. */
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** PHPUnit's failure, error or skip text. */
  message: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|\w+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? whole;
  });
}

function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(/([\w:-]+)="([^"]*)"/g)) {
    found[name!] = decode(value!);
  }
  return found;
}

/** The test cases of a report, in order. */
export function junitCases(xml: string): JunitCase[] {
  const cases: JunitCase[] = [];
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = attributes(match[1] ?? '');
    const body = match[2] ?? '';
    const problem = /<(failure|error)\b[^>]*>([\s\S]*?)<\/\1>/.exec(body);
    const skipped = /<skipped\b/.test(body);
    cases.push({
      name: `${attrs.class ?? attrs.classname ?? '?'}::${attrs.name ?? '?'}`,
      outcome: problem ? 'failed' : skipped ? 'skipped' : 'passed',
      message: problem ? decode(problem[2] ?? '').trim() : '',
    });
  }
  return cases;
}
