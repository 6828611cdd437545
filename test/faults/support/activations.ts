import type { ActivationLicense, Outcome, SteadyLoad } from './load.js';
import type { FaultSystem } from './system.js';

export interface ActivationAccount {
  key: string;
  limit: number;
  /** Identifiers activate was asked for. */
  attempted: number;
  /** Told "activated" (200). */
  toldActivated: number;
  /** Told "limit reached" (403). */
  toldRefused: number;
  /** Told nothing certain (INTERNAL_ERROR, no answer, a failed connection): retried afterwards. */
  uncertain: number;
  /** Activations on the license record before and after the uncertain ones were retried. */
  recordedBefore: number;
  recordedAfter: number;
  /** Every way what the record shows differs from what the clients were told. */
  problems: string[];
}

function duplicates(values: string[]): string[] {
  return values.filter((value, i) => values.indexOf(value) !== i);
}

/**
 * Compares what the clients were told about their activations with the license record the
 * management API shows, then does what a client does after an uncertain answer (activation is
 * idempotent: it asks again) and compares once more. Nothing may be lost (every identifier told
 * "activated" is on the record) or counted twice (no identifier twice, `activations_used` is the
 * number of activations, never past the limit), and once every request has been answered for
 * sure the record holds exactly the identifiers asked for (up to the limit).
 */
export async function accountActivations(
  system: FaultSystem,
  load: SteadyLoad,
  license: ActivationLicense,
  retryTimeoutMs: number,
): Promise<ActivationAccount> {
  const problems: string[] = [];
  const attempted = load.attemptedOn(license.key);
  const told = new Map<string, Outcome>();
  for (const outcome of load.outcomes) {
    if (outcome.op === 'activate' && outcome.key === license.key) {
      told.set(outcome.identifier, outcome);
    }
  }
  const toldActivated = attempted.filter((id) => told.get(id)?.activated === true);
  const toldRefused = attempted.filter((id) => told.get(id)?.activated === false);
  const uncertain = attempted.filter((id) => told.get(id)?.verdict !== 'ok');

  const check = async (when: string) => {
    const detail = await system.licenseDetail(license.key);
    const recorded = detail.activations.map((activation) => activation.identifier);
    const twice = duplicates(recorded);
    if (twice.length > 0) problems.push(`${when}: recorded twice: ${twice.join(', ')}`);
    if (detail.activations_used !== recorded.length) {
      problems.push(
        `${when}: activations_used ${detail.activations_used} but ${recorded.length} activations`,
      );
    }
    if (license.limit > 0 && recorded.length > license.limit) {
      problems.push(`${when}: ${recorded.length} activations past the limit ${license.limit}`);
    }
    const lost = toldActivated.filter((id) => !recorded.includes(id));
    if (lost.length > 0) problems.push(`${when}: told activated, not recorded: ${lost.join(', ')}`);
    return recorded;
  };

  const before = await check('before retries');
  const unexplained = before.filter((id) => !toldActivated.includes(id) && !uncertain.includes(id));
  if (unexplained.length > 0) {
    problems.push(`recorded though told otherwise or never asked: ${unexplained.join(', ')}`);
  }

  // The clients that got no certain answer ask again, one after another.
  for (const identifier of uncertain) {
    const answer = await system.publicPost(
      'activate',
      { license_key: license.key, identifier },
      { timeoutMs: retryTimeoutMs },
    );
    const refused = answer.status === 403 && license.limit > 0;
    if (answer.status !== 200 && !refused) {
      problems.push(`retry of ${identifier}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  const after = await check('after retries');
  const expected =
    license.limit === 0 ? attempted.length : Math.min(license.limit, attempted.length);
  if (after.length !== expected) {
    problems.push(`after retries: ${after.length} activations, expected exactly ${expected}`);
  }
  const strangers = after.filter((id) => !attempted.includes(id));
  if (strangers.length > 0) problems.push(`never asked for: ${strangers.join(', ')}`);

  return {
    key: license.key,
    limit: license.limit,
    attempted: attempted.length,
    toldActivated: toldActivated.length,
    toldRefused: toldRefused.length,
    uncertain: uncertain.length,
    recordedBefore: before.length,
    recordedAfter: after.length,
    problems,
  };
}
