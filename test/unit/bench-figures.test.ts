import { format } from 'prettier';
import {
  cpuSecondsBetween,
  parseProcStat,
  parseStatusBytes,
  processTree,
  type ProcStat,
} from '../../bench/cpu.js';
import type { Fixture } from '../../bench/fixture.js';
import { percentile } from '../../bench/load-protocol.js';
import type { PathMeasurement, RateMeasurement } from '../../bench/measure.js';
import { benchPaths, formBody, PATH_KEYS, type PathKey } from '../../bench/paths.js';
import {
  comparisonNote,
  microsPerRequest,
  projectMicros,
  rowRatios,
} from '../../bench/cpu-per-request.js';
import { markdownTable, ratio, significant } from '../../bench/markdown-figures.js';
import { readSettings, SettingsError } from '../../bench/settings.js';

/** A /proc/<pid>/stat line: 52 fields, utime and stime at 14 and 15. */
const statLine = (pid: number, comm: string, ppid: number, utime: number, stime: number) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 1419 0 0 0 ${utime} ${stime} 0 0 20 0 ` +
  '11 0 2236 1224196096 14925 18446744073709551615 1 1 0 0 0 0 0 16781312 134234626 0 0 0 17 ' +
  '1 0 0 0 0 0 0 0 0 0 0 0 0 0\n';

describe('bench: /proc readings', () => {
  test('a stat line gives pid, parent and CPU ticks, whatever the command name holds', () => {
    expect(parseProcStat(statLine(4242, 'node', 1, 1500, 320))).toEqual({
      pid: 4242,
      comm: 'node',
      ppid: 1,
      utime: 1500,
      stime: 320,
    });
    // comm may contain spaces and parentheses: the fields start after the last ")".
    expect(parseProcStat(statLine(7, 'a) (b c)', 3, 5, 6))).toMatchObject({
      comm: 'a) (b c)',
      ppid: 3,
      utime: 5,
      stime: 6,
    });
    expect(() => parseProcStat('not a stat line')).toThrow();
  });

  test('VmHWM and VmRSS are read in kB and given in bytes', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(parseStatusBytes(status, 'VmHWM')).toBe(204800 * 1024);
    expect(parseStatusBytes(status, 'VmRSS')).toBe(102400 * 1024);
    expect(parseStatusBytes('Name:\tkthreadd\n', 'VmHWM')).toBeNull();
  });

  test('a process tree holds the root and every descendant, nothing else', () => {
    const stat = (pid: number, ppid: number): ProcStat => ({
      pid,
      ppid,
      comm: 'x',
      utime: 0,
      stime: 0,
    });
    const all = [stat(1, 0), stat(10, 1), stat(11, 10), stat(12, 11), stat(20, 1)];
    expect(
      processTree(10, all)
        .map((s) => s.pid)
        .sort(),
    ).toEqual([10, 11, 12]);
    expect(processTree(99, all)).toEqual([]);
  });

  test('CPU seconds between snapshots, unknown when a process was missing from either', () => {
    const before = new Map([
      ['license', 1000],
      ['gone', 5],
      ['late', null],
    ]);
    const after = new Map([
      ['license', 1250],
      ['gone', null],
      ['late', 40],
    ]);
    expect(cpuSecondsBetween(before, after, 100)).toEqual(
      new Map([
        ['license', 2.5],
        ['gone', null],
        ['late', null],
      ]),
    );
  });
});

describe('bench: figures', () => {
  test('percentiles are nearest-rank', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  test("CPU per request in µs; the project figure is the sum of the five services (the baseline's and the floor's their own)", () => {
    const micros = microsPerRequest(
      new Map([
        ['gateway', 0.5],
        ['license', 0.25],
        ['update-catalog', 0],
        ['download', 0.01],
        ['management', 0],
        ['bare Express', 0.1],
        ['RPC floor', 0.3],
      ]),
      1000,
    );
    expect(micros.get('gateway')).toBe(500);
    expect(projectMicros('gateway', micros)).toBeCloseTo(760);
    expect(projectMicros('bare', micros)).toBe(100);
    expect(projectMicros('floor', micros)).toBe(300);
    expect(projectMicros('gateway', new Map([['gateway', 1]]))).toBeNull();
    expect(microsPerRequest(new Map([['gateway', 1]]), 0).get('gateway')).toBeNull();
  });

  test('three significant figures, and ratios to the baseline', () => {
    expect([1234.5, 123.45, 12.345, 1.2345, 0.12345, 0].map(significant)).toEqual([
      '1235',
      '123',
      '12.3',
      '1.23',
      '0.123',
      '0',
    ]);
    expect(significant(null)).toBe('n/a');
    expect(ratio(3300, 300)).toBe('11.0×');
    expect(ratio(100, null)).toBe('n/a');
    expect(ratio(100, 0)).toBe('n/a');
  });

  test('the Markdown table is as prettier would format it', async () => {
    const table = markdownTable(
      ['Path', 'req/s', 'CPU µs/req', '÷ bare Express'],
      [
        ['bare Express form endpoint (baseline)', '3477', '297', '1.00×'],
        ['download decision (expired license → 403)', '100', '6881', '23.1×'],
      ],
    );
    expect(table.split('\n')[1]).toMatch(/^\| -+ \| -+: \| -+: \| -+: \|$/);
    expect(await format(table, { parser: 'markdown' })).toBe(`${table}\n`);
  });

  test('form bodies keep the id placeholders autocannon fills in', () => {
    expect(formBody({ license_key: 'K 1', identifier: 'bench-[<id>]', product_id: 3 })).toBe(
      'license_key=K+1&identifier=bench-[<id>]&product_id=3',
    );
    expect(formBody({ identifier: 'pair-[<cycle>]' })).toBe('identifier=pair-[<cycle>]');
  });
});

describe('bench: paths', () => {
  test('every path has a key of PATH_KEYS (the names BENCH_ONLY takes), and every key a path', () => {
    const fixture = { productId: 1, licenseKey: 'K', identifier: 'd' } as Fixture;
    expect(benchPaths(fixture, 'http://127.0.0.1:1').map((path) => path.key)).toEqual([
      ...PATH_KEYS,
    ]);
    expect(PATH_KEYS).toContain('validate-many');
  });
});

describe('bench: comparing two rows of a run', () => {
  /** A gateway row: `answered` answers in 10 s, the project's CPU split over two services. */
  const row = (
    key: PathKey,
    answered: number,
    projectSeconds: number,
    bareAtSameRate: number | null,
  ): PathMeasurement => ({
    path: {
      key,
      name: key,
      target: 'gateway',
      expectedStatus: 200,
      requests: async () => [],
    },
    load: {
      seconds: 10,
      answered,
      expected: answered,
      statuses: { 200: answered },
      errors: 0,
      timeouts: 0,
      p50: 1,
      p99: 2,
    },
    cpuSeconds: new Map([
      ['gateway', projectSeconds * 0.6],
      ['license', projectSeconds * 0.4],
      ['update-catalog', 0],
      ['download', 0],
      ['management', 0],
    ]),
    bareAtSameRate,
  });
  // validate: 1000 µs a request at 100/s, the bare app 200 µs at that rate (5×); validate-many:
  // 2000 µs at 2/s, the bare app 800 µs at that rate (2.5×); validate loaded at 2/s: 1600 µs.
  const rows = [row('validate', 1000, 1, 200), row('validate-many', 20, 0.04, 800)];
  const validateAtRate: RateMeasurement = { ...row('validate', 20, 0.032, null), rate: 2 };

  test('project CPU per request of one row over the other: plain, each over the bare app at its rate, and at the same rate', () => {
    expect(rowRatios(rows, 'validate-many', 'validate', validateAtRate)).toMatchObject({
      plain: expect.closeTo(2, 9),
      overBareAtRate: expect.closeTo(0.5, 9),
      atSameRate: expect.closeTo(1.25, 9),
    });
    expect(rowRatios(rows, 'validate-many', 'validate')).toMatchObject({ atSameRate: null });
    expect(rowRatios(rows, 'validate-many', 'activate-same')).toBeNull();
    const unknownRate = [rows[0]!, row('validate-many', 20, 0.04, null)];
    expect(rowRatios(unknownRate, 'validate-many', 'validate')).toMatchObject({
      plain: expect.closeTo(2, 9),
      overBareAtRate: null,
    });
  });

  test('the note states the ratios, the figures they come from and the rates', () => {
    const note =
      'validate-many against validate, project CPU per request in this run: 2.00× ' +
      '(2000 µs ÷ 1000 µs); with each first divided by the bare Express app at its own rate ' +
      '(2 and 100 requests a second): 0.500×.';
    expect(comparisonNote(rows, 'validate-many', 'validate')).toBe(note);
    expect(comparisonNote(rows, 'validate-many', 'validate', validateAtRate)).toBe(
      `${note} validate loaded at 2 requests a second right after took 1600 µs a request: 1.25×.`,
    );
    expect(comparisonNote(rows.slice(0, 1), 'validate-many', 'validate')).toBeNull();
  });
});

describe('bench: settings', () => {
  const env = { AMQP_URL: 'amqp://localhost', REDIS_URL: 'redis://localhost' };

  test('defaults, and the values given', () => {
    expect(readSettings(env, ['validate'])).toMatchObject({
      seconds: 10,
      warmupSeconds: 2,
      connections: 10,
      downloadMb: 64,
    });
    expect(
      readSettings({ ...env, BENCH_SECONDS: '1', BENCH_CONNECTIONS: '4', BENCH_ONLY: 'validate' }, [
        'validate',
      ]),
    ).toMatchObject({ seconds: 1, warmupSeconds: 1, connections: 4, only: ['validate'] });
  });

  test.each([
    [{ BENCH_SECONDS: 'ten' }, /BENCH_SECONDS must be a number/],
    [{ BENCH_SECONDS: '0' }, /BENCH_SECONDS must be a number from 1/],
    [{ BENCH_CONNECTIONS: '2.5' }, /BENCH_CONNECTIONS must be a whole number/],
    [{ BENCH_DOWNLOAD_MB: '-1' }, /BENCH_DOWNLOAD_MB/],
    [{ BENCH_ONLY: 'validate,nope' }, /unknown paths \(nope\)/],
    [{ BENCH_PROFILE: 'redis' }, /BENCH_PROFILE must be one of/],
    [{ AMQP_URL: '' }, /AMQP_URL is required/],
    [{ REDIS_URL: undefined }, /REDIS_URL is required/],
  ])('%j is refused with a message naming it', (change, message) => {
    expect(() => readSettings({ ...env, ...change }, ['validate'])).toThrow(SettingsError);
    expect(() => readSettings({ ...env, ...change }, ['validate'])).toThrow(message);
  });
});
