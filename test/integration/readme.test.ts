import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../libs/config/index.js';
import { start, stopAll } from '../support/npm-start.js';

/**
 * The README runs as written: every shell block of it, in order from the walk-through to the end
 * of the file, then those of the docs pages that go on from it (PAGES, in that order), against a
 * system started as `npm start` starts it. A command that gets a non-2xx answer fails the run,
 * unless the page says on that command which status to expect (`# → 403`).
 *
 * Each fenced block of the README and of those pages is one of:
 * - ```sh: commands, run;
 * - ```sh after a line `<!-- not run: why -->`: commands not run against `npm start` (set-up,
 *   services started separately, the test suites);
 * - ```text: what a command prints, never run.
 * Any other block fails the test, so that no command is left out unnoticed; only a docs page may
 * also hold examples in a language no shell runs (EXAMPLE_LANGUAGES).
 */

const root = path.resolve(import.meta.dirname, '..', '..');
const read = (page: string) => readFileSync(path.join(root, page), 'utf8');
const readme = read('README.md');

/** The docs pages whose commands go on from the walk-through, in the order they run. */
const PAGES = [
  'docs/client-walk-through.md',
  'docs/updaters.md',
  'docs/admin-api.md',
  'docs/webhooks.md',
  'docs/stores.md',
];

/** Languages of the examples a docs page may show beside its commands: none of them is a shell. */
const EXAMPLE_LANGUAGES: ReadonlySet<string> = new Set([
  'json',
  'js',
  'yaml',
  'xml',
  'php',
  'swift',
]);

/** The text of a `## ` section of a page, up to the next one. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no section "${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

interface Block {
  /** The file the block is in: README.md or one of PAGES. */
  page: string;
  /** The `## ` section the block is in, and its nearest heading (`## ` or `### `). */
  section: string;
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  text: string;
  /** Why it is not run, from the `<!-- not run: ... -->` line before it; null when it is run. */
  notRun: string | null;
}

const NOT_RUN = /^<!-- not run: (.*\S.*) -->$/;

/**
 * The fenced blocks of a Markdown text, and what is wrong with them: a fence of a kind the test
 * does not know, a `not run` marker that is not right before a ```sh block, or a block left open.
 */
function readmeBlocks(
  markdown: string,
  page = 'README.md',
  examples: ReadonlySet<string> = new Set(),
): { blocks: Block[]; problems: string[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const problems: string[] = [];
  let section = '';
  let heading = '';
  let marker: { reason: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const at = `line ${i + 1} (${heading || 'top'})`;
    if (line.trim() === '') continue;
    const fence = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === null) {
      if (marker !== null) {
        problems.push(`line ${marker.line}: "not run" is not right before a \`\`\`sh block`);
      }
      marker = null;
      if (line.startsWith('## ')) section = heading = line.slice(3).trim();
      else if (line.startsWith('### ')) heading = line.slice(4).trim();
      const reason = NOT_RUN.exec(line)?.[1];
      if (reason !== undefined) marker = { reason, line: i + 1 };
      else if (line.startsWith('<!--') && line.includes('not run')) {
        problems.push(`${at}: "not run" must be written <!-- not run: why -->`);
      }
      continue;
    }
    const [, indent, ticks, info] = fence;
    const close = lines.findIndex((l, j) => j > i && l.trim() === ticks);
    if (close === -1) {
      problems.push(`${at}: a block that is never closed`);
      break;
    }
    const language = info!.trim();
    const block: Block = {
      page,
      section,
      heading,
      line: i + 1,
      language,
      text: lines.slice(i + 1, close).join('\n') + '\n',
      notRun: marker?.reason ?? null,
    };
    if (indent !== '' || ticks !== '```') {
      problems.push(`${at}: only \`\`\` fences at the start of a line are read`);
    } else if (language === 'sh') {
      blocks.push(block);
    } else if (language === 'text' && marker === null) {
      blocks.push(block);
    } else if (language === 'text') {
      problems.push(`${at}: a \`\`\`text block is never run; "not run" is for \`\`\`sh blocks`);
    } else if (examples.has(language) && marker === null) {
      // An example in its own language: nothing to run.
    } else {
      problems.push(
        `${at}: a \`\`\`${language || ' block with no language'}` +
          ' is neither run (```sh) nor excluded (<!-- not run: why --> before it) nor output (```text)',
      );
    }
    marker = null;
    i = close;
  }
  if (marker !== null) {
    problems.push(`line ${marker.line}: "not run" is not right before a \`\`\`sh block`);
  }
  return { blocks, problems };
}

/**
 * The blocks the test runs, in order: those of the walk-through first (all of them), then every
 * other ```sh block not marked "not run", down to the end of the file. Nothing before the
 * walk-through may run: its variables are what the later blocks use.
 */
function runnableBlocks(markdown: string): { blocks: Block[]; problems: string[] } {
  const { blocks, problems } = readmeBlocks(markdown);
  const walkThrough = blocks.findIndex((b) => b.section === 'Walk-through');
  const run: Block[] = [];
  blocks.forEach((block, index) => {
    if (block.language !== 'sh') return;
    const where = `line ${block.line} (${block.heading})`;
    if (block.notRun !== null) {
      if (block.section === 'Walk-through') {
        problems.push(`${where}: every walk-through block runs`);
      }
      return;
    }
    if (walkThrough === -1 || index < walkThrough) {
      problems.push(`${where}: runs before the walk-through; mark it <!-- not run: why -->`);
      return;
    }
    run.push(block);
  });
  if (walkThrough === -1) problems.push('no block in a "Walk-through" section');
  return { blocks: run, problems };
}

/**
 * The blocks of a docs page that go on from the walk-through: every ```sh block not marked
 * "not run", in order, by the same rules as the README's, beside examples in other languages.
 */
function pageBlocks(page: string, markdown: string): { blocks: Block[]; problems: string[] } {
  const { blocks, problems } = readmeBlocks(markdown, page, EXAMPLE_LANGUAGES);
  return {
    blocks: blocks.filter((b) => b.language === 'sh' && b.notRun === null),
    problems: problems.map((problem) => `${page}: ${problem}`),
  };
}

/**
 * The line each block's run starts with on standard output (with the block's place in the run),
 * to tell what each block printed.
 */
const BLOCK_START = '\n@@ README block ';

/** The script of the blocks: each block, its commands marked with their expected statuses. */
function script(blocks: Block[]): string {
  return blocks
    .map(
      (block, index) =>
        `README_BLOCK='${block.page} line ${block.line} (${block.heading.replaceAll("'", '')})'\n` +
        `printf '${BLOCK_START.replaceAll('\n', '\\n')}%s @@\\n' ${index}\n` +
        withExpectations(block.text),
    )
    .join('\n');
}

/**
 * Marks each command whose last line says `# → NNN` with the status it expects. A command may
 * span lines ending in `\`; its comment can only be on its last line.
 */
function withExpectations(block: string): string {
  const out: string[] = [];
  let command: string[] = [];
  for (const line of block.split('\n')) {
    command.push(line);
    if (line.endsWith('\\')) continue;
    const expected = /#\s*→\s*(\d{3})\b/.exec(line)?.[1];
    if (expected !== undefined) command[0] = `EXPECT_STATUS=${expected} ${command[0]}`;
    out.push(...command);
    command = [];
  }
  return [...out, ...command].join('\n');
}

/**
 * Every curl of the README goes through this function: it records the status of the answer
 * (from the headers curl dumps) and fails the run on a status the README does not expect.
 */
const PRELUDE = String.raw`
set -euo pipefail
trap 'echo "README: failed in the block at ${'${README_BLOCK:-?}'}" >&2' ERR
curl() {
  local headers status expected="${'${EXPECT_STATUS:-2xx}'}"
  headers=$(mktemp)
  command curl -D "$headers" "$@" || { echo "README: curl failed: curl $*" >&2; rm -f "$headers"; return 1; }
  status=$(awk '/^HTTP\//{s=$2} END{print s}' "$headers")
  rm -f "$headers"
  if [[ -n ${'${README_STATUSES:-}'} ]]; then printf '%s %s\n' "$status" "$*" >> "$README_STATUSES"; fi
  if [[ $expected == 2xx && $status == 2* ]] || [[ $status == "$expected" ]]; then return 0; fi
  echo "README: HTTP $status (expected $expected) from: curl $*" >&2
  return 1
}
`;

const workDir = path.join(root, 'data', `readme-${randomBytes(4).toString('hex')}`);

afterAll(async () => {
  // Until the system (also one still starting when the test gave up) has stopped and its
  // database has written its last data: files written into the directory while it is removed
  // make the removal fail.
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}, 70_000);

describe('README: its commands run as written', () => {
  test('every command, the walk-through first, succeeds against npm start, in order', async () => {
    mkdirSync(workDir, { recursive: true });
    // As the README says: data/ of the directory the commands run in.
    const dataDir = path.join(workDir, 'data');
    // On ports the system picks and its banner names: a port picked for it beforehand can be
    // taken by another process before the system listens.
    const started = await start({
      DATA_DIR: dataDir,
      AMQP_PREFIX: `test.readme.${randomBytes(4).toString('hex')}`,
    });

    const fromReadme = runnableBlocks(readme);
    const fromPages = PAGES.map((page) => pageBlocks(page, read(page)));
    const blocks = [fromReadme, ...fromPages].flatMap((found) => found.blocks);
    expect([fromReadme, ...fromPages].flatMap((found) => found.problems)).toEqual([]);
    expect(blocks.filter((b) => b.section === 'Walk-through').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.section !== 'Walk-through').length).toBeGreaterThanOrEqual(3);
    // Every page listed goes on from the walk-through with commands of its own.
    expect(PAGES.filter((page) => !blocks.some((b) => b.page === page))).toEqual([]);
    // The README names the default ports; this system listens on free ones.
    const commands = [PRELUDE, script(blocks)]
      .join('\n')
      .replaceAll('127.0.0.1:8080', new URL(started.banner.gateway).host)
      .replaceAll('127.0.0.1:8081', new URL(started.banner.management).host);
    const statuses = path.join(workDir, '.statuses');
    const run = spawnSync('bash', ['-c', commands], {
      cwd: workDir,
      env: { ...process.env, DATA_DIR: dataDir, README_STATUSES: statuses },
      encoding: 'utf8',
      timeout: 180_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    // On a failure, what the checker said: the command, its status, the block it is in.
    const said = run.stderr.split('\n').filter((line) => /^README: |^curl: \(/.test(line));
    expect({ status: run.status, said }).toEqual({ status: 0, said: [] });
    expect({ status: run.status, output }).toEqual({ status: 0, output: expect.any(String) });
    expect(run.stdout).toContain('the download is the uploaded package');
    // The license file checked out through the command line verifies offline.
    expect(run.stdout).toContain('License file: for example.com');
    expect(run.stdout).toMatch(/"identifier":"example\.com"/);
    expect(run.stdout).toMatch(/"code":"ACTIVATION_LIMIT_REACHED"/);
    expect(run.stdout).toMatch(/"activations_used":0/);
    expect(run.stdout).toMatch(
      /"rejected_attempts":\[\{"identifier":"shop\.example\.org","name":null,"reason":"limit_reached","source":"api","tries":1/,
    );
    // docs/client-walk-through.md, leases: a lease renewed by the command line, and a staging site that takes no slot.
    expect(run.stdout).toMatch(/Lease: renewed; ends \S+ unless renewed again/);
    expect(run.stdout).toMatch(/"exempt_used":1/);
    expect(run.stdout).toMatch(/"identifier":"staging\.shop\.example"/);
    // docs/webhooks.md, step by step: a loopback endpoint refused, and a test event's first attempt in the delivery log.
    expect(run.stdout).toMatch(
      /"code":"INVALID_REQUEST","message":"url: 127\.0\.0\.1 is or resolves/,
    );
    expect(run.stdout).toMatch(/"event_type":"webhook\.test"/);
    expect(run.stdout).toMatch(
      /"status":"pending","attempts":\[\{"at":"[^"]+","status":null,"error":"/,
    );
    // docs/stores.md, a sale step by step: a signed store event recorded, a forged one refused, the license made and mailed.
    expect(run.stdout).toContain('{"data":{"received":"recorded"}}');
    expect(run.stdout).toMatch(/"code":"STORE_SIGNATURE_INVALID"/);
    expect(run.stdout).toMatch(/"order_id":"1001".*"outcome":"applied"/);
    expect(run.stdout).toMatch(/"mail":\[\{"outcome":"sent","moment":"created"/);
    expect(run.stdout).toMatch(/"customer":\{"email":"ada@example\.com","name":"Ada"\}/);
    expect(run.stdout).toMatch(/\.eml\n/);

    // What the blocks after the walk-through printed, by the page and heading they are under.
    const printed = (page: string, heading: string) =>
      run.stdout
        .split(BLOCK_START)
        .filter((part) => {
          const block = blocks[Number(/^(\d+) @@/.exec(part)?.[1] ?? -1)];
          return block?.page === page && block.heading === heading;
        })
        .join('\n');
    // Public API: the walk-through's key activated again, and a license file for it.
    const publicApi = printed('docs/client-walk-through.md', 'Public API');
    expect(publicApi).toMatch(
      /"activations_used":1,"expires_at":"2030-12-31T23:59:59\.000Z","identifier":"example\.com"/,
    );
    expect(publicApi).toMatch(/"valid":true/);
    expect(publicApi).toMatch(/"license_file":"ey/);
    // Update check and download: the walk-through's version, a refusal, a resumed download.
    const downloads = printed('docs/client-walk-through.md', 'Update check and download');
    expect(downloads).toMatch(/"update_available":true,"name":"My Plugin","version":"1\.2\.0"/);
    expect(downloads).toMatch(/"code":"ACTIVATION_NOT_FOUND"/);
    expect(downloads).toContain('the resumed download is whole');
    const resumed = readFileSync(statuses, 'utf8')
      .split('\n')
      .filter((l) => / -C - -o resumed\.zip /.test(l));
    expect(resumed.map((l) => l.split(' ')[0])).toEqual(['206']);
    // Management API: a second product's license, a file for one plan, the refused download.
    const management = printed('docs/admin-api.md', 'Catalog, licenses and files');
    expect(management).toMatch(/"product":"My Theme","plan":"Pro"/);
    expect(management).toMatch(/"filename":"my-theme-pro-2\.0\.0\.zip","plan_id":\d+/);
    expect(management).toMatch(/"status":"ok","services":/);
    expect(management).toMatch(
      /"identifier":"shop\.example\.org",[^}]*"outcome":"refused","reason":"ACTIVATION_NOT_FOUND"/,
    );
  }, 300_000);
});

describe('README: the checker catches what it should', () => {
  test('a command marked with the status it expects gets that status, others must be 2xx', () => {
    expect(withExpectations('curl -s $API/x -d a=1  # → 403\ncurl -s $API/y')).toBe(
      'EXPECT_STATUS=403 curl -s $API/x -d a=1  # → 403\ncurl -s $API/y',
    );
    expect(withExpectations('curl -s $API/x \\\n  -d a=1  # → 404')).toBe(
      'EXPECT_STATUS=404 curl -s $API/x \\\n  -d a=1  # → 404',
    );
  });

  test('a block is run, excluded with its reason, or output; any other block fails', () => {
    const markdown = [
      '## Set-up',
      '<!-- not run: starts the system -->',
      '',
      '```sh',
      'npm start',
      '```',
      '```text',
      'Stop with Ctrl+C.',
      '```',
      '## Walk-through',
      '```sh',
      'curl -s $API/a',
      '```',
      '## Later',
      '### Part',
      '```sh',
      'curl -s $API/b',
      '```',
      'The tests (CI does not run them all):',
      '<!-- not run: the tests -->',
      '```sh',
      'npm test',
      '```',
    ].join('\n');
    const { blocks, problems } = runnableBlocks(markdown);
    expect(problems).toEqual([]);
    expect(blocks.map((b) => [b.section, b.heading, b.line, b.text])).toEqual([
      ['Walk-through', 'Walk-through', 11, 'curl -s $API/a\n'],
      ['Later', 'Part', 16, 'curl -s $API/b\n'],
    ]);

    const problemsWith = (text: string) =>
      runnableBlocks(`## Walk-through\n\`\`\`sh\ntrue\n\`\`\`\n${text}\n`).problems;
    expect(problemsWith('```\nnpm ci\n```')).toEqual([expect.stringMatching(/no language/)]);
    expect(problemsWith('```bash\nnpm ci\n```')).toEqual([expect.stringMatching(/```bash/)]);
    expect(problemsWith('  ```sh\nnpm ci\n  ```')).toHaveLength(1);
    expect(problemsWith('```sh\nnpm ci')).toEqual([expect.stringMatching(/never closed/)]);
    expect(problemsWith('<!-- not run: output -->\n```text\nx\n```')).toHaveLength(1);
    expect(problemsWith('<!-- not run: -->\n```sh\nnpm ci\n```')).toHaveLength(1);
    expect(problemsWith('<!-- not run: x -->\nText.\n```sh\nnpm ci\n```')).toHaveLength(1);
    expect(problemsWith('<!-- not run: at the end -->')).toHaveLength(1);
    // Nothing runs before the walk-through, and all of it runs.
    expect(
      runnableBlocks('```sh\nnpm ci\n```\n## Walk-through\n```sh\ntrue\n```').problems,
    ).toEqual([expect.stringMatching(/before the walk-through/)]);
    expect(
      runnableBlocks('## Walk-through\n<!-- not run: x -->\n```sh\ntrue\n```').problems,
    ).toEqual([expect.stringMatching(/every walk-through block runs/)]);
    expect(runnableBlocks('## Intro\n```sh\ntrue\n```').problems).toContain(
      'no block in a "Walk-through" section',
    );
  });

  test('a docs page may also show examples in other languages; the README may not', () => {
    const markdown = '## Events\n```json\n{"a":1}\n```\n```sh\ncurl -s $API/c\n```';
    const page = pageBlocks('docs/x.md', markdown);
    expect(page.problems).toEqual([]);
    expect(page.blocks.map((b) => [b.page, b.heading, b.text])).toEqual([
      ['docs/x.md', 'Events', 'curl -s $API/c\n'],
    ]);
    expect(pageBlocks('docs/x.md', '```bash\nnpm ci\n```').problems).toEqual([
      expect.stringMatching(/^docs\/x\.md: .*```bash/),
    ]);
    expect(pageBlocks('docs/x.md', '<!-- not run: x -->\n```json\n{}\n```').problems).toHaveLength(
      1,
    );
    expect(runnableBlocks(`## Walk-through\n\`\`\`sh\ntrue\n\`\`\`\n${markdown}`).problems).toEqual(
      [expect.stringMatching(/```json/)],
    );
  });

  test('an unexpected status fails the run', () => {
    const fakeCurl = (status: number) =>
      `command() { shift; local h=""; while [[ $# -gt 0 ]]; do [[ $1 == -D ]] && h=$2; shift; done; ` +
      `printf 'HTTP/1.1 ${status} X\\r\\n' > "$h"; }\n`;
    const run = (status: number, line: string) =>
      spawnSync('bash', ['-c', `${PRELUDE}\n${fakeCurl(status)}${withExpectations(line)}`]).status;
    expect(run(200, 'curl -s http://x')).toBe(0);
    expect(run(403, 'curl -s http://x')).not.toBe(0);
    expect(run(403, 'curl -s http://x  # → 403')).toBe(0);
    expect(run(200, 'curl -s http://x  # → 403')).not.toBe(0);
    expect(run(500, 'OUT=$(curl -s http://x)')).not.toBe(0);
  });
});

describe('docs/settings.md: Configuration lists every variable', () => {
  test('each setting the configuration loader reads has a row in the table', () => {
    const table = section(read('docs/settings.md'), 'Configuration');
    const keys = [
      ...Object.keys(loadConfig({})),
      'AMQP_URL',
      'MONGODB_URL',
      'REDIS_URL',
      'PUBLIC_URL',
      'S3_ENDPOINT',
      'DOWNLOAD_SERVICE_URL',
    ];
    const missing = keys.filter((key) => !table.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });
});
