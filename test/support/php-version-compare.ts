// A port of PHP's version_compare() (php-src ext/standard/versioning.c: php_canonicalize_version,
// compare_special_version_forms, php_version_compare), which Joomla uses for every version rule of an
// update stream: php_minimum, supported_databases and the choice of the highest <version>.

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);
const isSpecialVer = (c: string): boolean => c === '-' || c === '_' || c === '+';
// isdig/isndig of versioning.c: a '.' is neither a digit nor a non-digit.
const isDig = (c: string): boolean => isDigit(c) && c !== '.';
const isNdig = (c: string): boolean => !isDigit(c) && c !== '.';

/** s/[-_+]/./g, a '.' between a digit and a non-digit, any other non-alphanumeric becomes '.' (never doubled). */
export function phpCanonicalizeVersion(version: string): string {
  if (version.length === 0) return '';
  let out = version[0]!;
  let lp = version[0]!;
  for (const c of version.slice(1)) {
    const last = out[out.length - 1];
    if (isSpecialVer(c)) {
      if (last !== '.') out += '.';
    } else if ((isNdig(lp) && isDig(c)) || (isDig(lp) && isNdig(c))) {
      if (last !== '.') out += '.';
      out += c;
    } else if (!isAlnum(c)) {
      if (last !== '.') out += '.';
    } else {
      out += c;
    }
    lp = c;
  }
  return out;
}

// Order of versioning.c's special_forms; the first name that is a PREFIX of the form wins, any other
// form (e.g. "stable") ranks -1, below "dev".
const SPECIAL_FORMS: ReadonlyArray<readonly [string, number]> = [
  ['dev', 0],
  ['alpha', 1],
  ['a', 1],
  ['beta', 2],
  ['b', 2],
  ['RC', 3],
  ['rc', 3],
  ['#', 4],
  ['pl', 5],
  ['p', 5],
];

function specialFormOrder(form: string): number {
  for (const [name, order] of SPECIAL_FORMS) if (form.startsWith(name)) return order;
  return -1;
}

const sign = (n: number): -1 | 0 | 1 => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** strtol(p, NULL, 10) of a part that starts with a digit. */
const leadingInt = (part: string): number => Number(/^\d+/.exec(part)![0]);

/** PHP's version_compare($a, $b) without an operator: -1, 0 or 1. */
export function phpVersionCompare(a: string, b: string): -1 | 0 | 1 {
  if (a === '' || b === '') {
    if (a === '' && b === '') return 0;
    return a !== '' ? 1 : -1;
  }
  const v1 = a.startsWith('#') ? a : phpCanonicalizeVersion(a);
  const v2 = b.startsWith('#') ? b : phpCanonicalizeVersion(b);
  // p = start of the current part, n = index of the '.' ending it (-1 when it is the last part).
  let p1 = 0;
  let p2 = 0;
  let n1 = 0;
  let n2 = 0;
  let compare: -1 | 0 | 1 = 0;
  while (p1 < v1.length && p2 < v2.length && n1 !== -1 && n2 !== -1) {
    n1 = v1.indexOf('.', p1);
    n2 = v2.indexOf('.', p2);
    const part1 = v1.slice(p1, n1 === -1 ? undefined : n1);
    const part2 = v2.slice(p2, n2 === -1 ? undefined : n2);
    if (isDigit(part1[0]) && isDigit(part2[0])) {
      compare = sign(leadingInt(part1) - leadingInt(part2));
    } else if (!isDigit(part1[0]) && !isDigit(part2[0])) {
      compare = sign(specialFormOrder(part1) - specialFormOrder(part2));
    } else if (isDigit(part1[0])) {
      compare = sign(specialFormOrder('#N#') - specialFormOrder(part2));
    } else {
      compare = sign(specialFormOrder(part1) - specialFormOrder('#N#'));
    }
    if (compare !== 0) break;
    if (n1 !== -1) p1 = n1 + 1;
    if (n2 !== -1) p2 = n2 + 1;
  }
  if (compare === 0) {
    if (n1 !== -1) {
      compare = isDigit(v1[p1]) ? 1 : phpVersionCompare(v1.slice(p1), '#N#');
    } else if (n2 !== -1) {
      compare = isDigit(v2[p2]) ? -1 : phpVersionCompare('#N#', v2.slice(p2));
    }
  }
  return compare;
}

/** version_compare($a, $b, '>='), as Joomla checks php_minimum and supported_databases. */
export const phpVersionAtLeast = (a: string, b: string): boolean => phpVersionCompare(a, b) !== -1;

/** version_compare($a, $b, '>') (also 'gt'), as Joomla keeps the highest <version>. */
export const phpVersionGreater = (a: string, b: string): boolean => phpVersionCompare(a, b) === 1;
