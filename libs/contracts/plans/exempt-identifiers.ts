import { z } from 'zod';
import { MAX_EXEMPT_IDENTIFIERS, MAX_EXEMPT_LIMIT } from '../bounds.js';
import { MAX_FIELD_LENGTH, WellFormedText, characterLength } from '../shared.js';

/**
 * Exempt identifiers (docs/api-decisions.md, "Exempt identifiers"): patterns a seller sets on a
 * plan for staging, development and local sites, whose activations take no slot. They live on
 * the server, so a client cannot declare itself exempt; `exempt_limit` caps how many a license
 * may hold.
 */

/**
 * The shape of a pattern, matched against a normalised identifier:
 * - `exact`: the identifier itself (`localhost`);
 * - `leading`: `*.suffix`, one or more whole labels before `.suffix` (`*.test`);
 * - `trailing`: `prefix.*`, one or more whole labels after `prefix.` (`staging.*`);
 * - `local-part`: `*@domain`, any address at exactly that domain (`*@example.com`).
 */
export type ExemptPatternForm =
  | { kind: 'exact'; value: string }
  | { kind: 'leading'; suffix: string }
  | { kind: 'trailing'; prefix: string }
  | { kind: 'local-part'; domain: string };

/** A pattern in its stored form with its shape, or why it is refused. */
export type ExemptPatternCheck = { pattern: string; form: ExemptPatternForm } | { problem: string };

/** As libs/identifier refuses them in websites: characters nobody sees. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const SHOWN_LENGTH = 40;

/** The pattern as a message names it: quoted, invisible characters escaped, long ones cut. */
function shown(pattern: string): string {
  const chars = Array.from(pattern);
  const cut = chars.length > SHOWN_LENGTH ? `${chars.slice(0, SHOWN_LENGTH).join('')}…` : pattern;
  const escaped = cut.replace(
    INVISIBLE_ALL,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}

const FORMS =
  'a whole first label (*.test), a whole last label (staging.*) or an address (*@example.com)';

/**
 * Patterns are stored trimmed and lowercased, so patterns differing only in case are one, and
 * refused when they could match every identifier or are not one of the four forms: a `*` is
 * never part of a label (`sh*p.test`), and a pattern has one at most, so its reach can be read
 * at a glance.
 */
export function checkExemptPattern(raw: string): ExemptPatternCheck {
  const pattern = raw.trim().toLowerCase();
  const name = shown(pattern);
  const refused = (why: string) => ({ problem: `${name} ${why}` });
  if (pattern === '') return refused('is empty: a pattern names at least one label');
  if (characterLength(pattern) > MAX_FIELD_LENGTH) {
    return refused(`is over ${MAX_FIELD_LENGTH} characters`);
  }
  if (/\s/u.test(pattern)) return refused('contains white space');
  if (INVISIBLE.test(pattern)) return refused('contains invisible or control characters');
  if (/^[*.@]+$/.test(pattern)) {
    return pattern.includes('*')
      ? refused('would match every identifier: name at least one label, as in *.test')
      : refused('names no label');
  }
  const wildcards = pattern.split('*').length - 1;
  if (wildcards > 1) {
    return refused(`has more than one *: a pattern has one, standing for ${FORMS}`);
  }

  let form: ExemptPatternForm;
  let fixed: string;
  if (wildcards === 0) {
    form = { kind: 'exact', value: pattern };
    fixed = pattern;
  } else if (pattern.startsWith('*.')) {
    fixed = pattern.slice(2);
    form = { kind: 'leading', suffix: fixed };
  } else if (pattern.endsWith('.*')) {
    fixed = pattern.slice(0, -2);
    form = { kind: 'trailing', prefix: fixed };
  } else if (pattern.startsWith('*@')) {
    fixed = pattern.slice(2);
    if (fixed.includes('@')) return refused('has more than one @ after *@: name one domain');
    form = { kind: 'local-part', domain: fixed };
  } else {
    return refused(`has a * inside a label: a * stands for ${FORMS}`);
  }
  if (fixed.split('.').some((label) => label === '')) {
    return refused('has an empty label: a dot at either end, or two in a row');
  }
  return { pattern, form };
}

export const ExemptIdentifierPattern = WellFormedText.trim()
  .toLowerCase()
  .superRefine((value, ctx) => {
    const checked = checkExemptPattern(value);
    if ('problem' in checked) ctx.addIssue({ code: 'custom', message: checked.problem });
  })
  .meta({
    description:
      'An identifier whose activations take no slot, matched against the normalised identifier ' +
      'regardless of case: an exact value (`localhost`), `*.suffix` (one or more whole labels ' +
      'before it: `*.test`), `prefix.*` (one or more whole labels after it: `staging.*`), or, ' +
      'on seat plans, `*@domain` (any address at that domain). Stored trimmed and lowercased.',
  });

/** The patterns, each once in its stored form, in the order first sent. */
export const ExemptIdentifiers = z
  .array(ExemptIdentifierPattern)
  .max(MAX_EXEMPT_IDENTIFIERS, {
    error: `must hold at most ${MAX_EXEMPT_IDENTIFIERS} patterns`,
  })
  .overwrite((patterns) => [...new Set(patterns)])
  .meta({
    description:
      `Patterns of identifiers whose activations take no slot, at most ${MAX_EXEMPT_IDENTIFIERS}; ` +
      'patterns equal once trimmed and lowercased are kept once.',
  });

/**
 * Unlike `activation_limit`, 0 is not unlimited: it means no exempt activation at all. The cap
 * is what keeps a broad pattern from freeing a license of its limit.
 */
export const ExemptLimit = z.number().int().nonnegative().max(MAX_EXEMPT_LIMIT).meta({
  description: 'The most exempt activations a license may hold; 0 means none (not unlimited).',
});
