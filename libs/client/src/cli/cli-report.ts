/**
 * The command line's output: a result as readable lines (or JSON), and its exit code, which
 * tells success, license problems and transient failures apart.
 */
import { EXIT, type CliIo, type Command } from './cli-io.js';
import {
  classifyResult,
  type ActivationData,
  type CheckoutData,
  type DownloadData,
  type LicenseFileData,
  type LicensingResult,
  type UpdateInfo,
  type ValidationData,
} from '../result.js';

export function exitCode(result: LicensingResult<unknown>, command?: Command): number {
  // An answer from the offline grace keeps the software running, but renewed no lease.
  if (command === 'heartbeat' && result.success && result.stale) return EXIT.TRANSIENT;
  switch (classifyResult(result)) {
    case 'ok':
      return EXIT.OK;
    case 'license':
      return EXIT.LICENSE;
    case 'transient':
      return EXIT.TRANSIENT;
    case 'failure':
      return EXIT.FAILURE;
  }
}

export function report(
  io: CliIo,
  command: Command,
  result: LicensingResult<unknown>,
  json: boolean,
): number {
  const code = exitCode(result, command);
  if (json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return code;
  }
  if (!result.success) {
    const lines = [`licensing: ${result.message}${result.code ? ` [${result.code}]` : ''}`];
    const details = result.details ?? {};
    if (
      typeof details.activations_used === 'number' &&
      typeof details.activation_limit === 'number'
    ) {
      lines.push(`Activations: ${details.activations_used} of ${details.activation_limit} used.`);
    }
    if (code === EXIT.TRANSIENT) {
      const wait = result.retryAfter === undefined ? '' : ` (retry after ${result.retryAfter} s)`;
      lines.push(
        `This is a temporary problem, not a verdict on the license: try again later${wait}.`,
      );
    }
    io.stderr.write(`${lines.join('\n')}\n`);
    return code;
  }
  const out = (lines: Array<string | null>) =>
    io.stdout.write(`${lines.filter((line) => line !== null).join('\n')}\n`);
  switch (command) {
    case 'activate':
    case 'deactivate': {
      const data = result.data as ActivationData;
      out([
        `${command === 'activate' ? 'Activated' : 'Deactivated'}: ${data.identifier}`,
        statusSentence(data.status),
        ...licenseLines(data),
      ]);
      break;
    }
    case 'validate':
    case 'heartbeat':
    case 'verify': {
      const data = result.data as ValidationData;
      const file = command === 'verify' ? (result.data as LicenseFileData) : null;
      const offline =
        result.stale && result.cause
          ? `Offline: the server could not answer (${result.cause.message}); this is its last verified answer, of ${result.checked_at}.`
          : null;
      const fileLines = file
        ? [
            `License file: for ${file.identifier}, product ${file.product_id}`,
            `Lease: until ${file.lease_expires_at} (issued ${file.issued_at})`,
          ]
        : [];
      if (data.status === 'invalid') {
        // Spec 4.2 rule 1: an unknown key comes with a limit of 0, which elsewhere means
        // unlimited; its zeros and nulls describe no license, so none of them is shown.
        out([
          ...fileLines,
          'Valid: no (status invalid)',
          'The license key is unknown: the store has no license with this key.',
          offline,
        ]);
        break;
      }
      const heartbeat = command === 'heartbeat';
      out([
        ...fileLines,
        `Valid: ${data.valid ? 'yes' : 'no'} (status ${data.status})`,
        statusSentence(data.status),
        data.identifier_activated ? null : 'Identifier: not activated on this license',
        heartbeat && !data.identifier_activated
          ? 'The activation has lapsed or was removed: activate it again.'
          : null,
        ...licenseLines(data),
        offline,
        heartbeat && data.identifier_activated ? leaseLine(data, result.stale === true) : null,
      ]);
      break;
    }
    case 'checkout': {
      const data = result.data as CheckoutData & { path: string };
      out([`Saved: ${data.path}`, `Lease: until ${data.expires_at} (issued ${data.issued_at})`]);
      break;
    }
    case 'keys':
      out([JSON.stringify(result.data, null, 2)]);
      break;
    case 'check-update': {
      const data = result.data as UpdateInfo;
      if (!data.update_available) {
        out(['No published version.']);
        break;
      }
      out([
        `${data.name ?? 'Product'} ${data.version ?? ''}${data.date ? ` (${data.date})` : ''}`.trim(),
        data.file_size === undefined ? null : `Size: ${bytes(data.file_size)}`,
        data.download_url
          ? `Download: ${data.download_url}${data.download_requires ? ` (needs ${data.download_requires.replace('_', ' ')})` : ''}`
          : 'Download: from the customer account only',
        data.license_status ? updateLicenseLine(data) : null,
        data.release_notes ? `\n${data.release_notes}` : null,
      ]);
      break;
    }
    case 'download': {
      const data = result.data as DownloadData;
      out([
        `Saved: ${data.path ?? data.filename}`,
        `Size: ${bytes(data.size)}`,
        `SHA-256: ${data.sha256}${data.checksumVerified ? ' (verified)' : ''}`,
      ]);
      break;
    }
  }
  return code;
}

/** When the lease a heartbeat answered with ends, or why there is none. */
function leaseLine(data: ValidationData, stale: boolean): string {
  const ends = data.lease_expires_at ?? null;
  if (stale) {
    return `Lease: not renewed (the server could not answer)${ends === null ? '' : `; it ends ${ends} unless renewed`}`;
  }
  if (ends === null) return 'Lease: none (the activation does not lapse)';
  return `Lease: renewed; ends ${ends} unless renewed again`;
}

/** A sentence for a license that is not active; none for `active` or a status added later. */
function statusSentence(status: string): string | null {
  switch (status) {
    case 'expired':
      return 'The license has expired.';
    case 'suspended':
      return 'The license is suspended.';
    case 'revoked':
      return 'The license has been revoked.';
    case 'cancelled':
      return 'The license has been cancelled.';
    default:
      return null;
  }
}

function expiryLine(status: string, expiresAt: string | null): string | null {
  if (status === 'expired') return expiresAt === null ? null : `Expired: ${expiresAt}`;
  return `Expires: ${expiresAt ?? 'never'}`;
}

function licenseLines(data: ActivationData | ValidationData): Array<string | null> {
  return [
    data.product ? `Product: ${data.product}${data.plan ? ` (plan ${data.plan})` : ''}` : null,
    data.activation_type ? `Activation type: ${data.activation_type}` : null,
    data.activation_limit === 0
      ? `Activations: ${data.activations_used} used, no limit`
      : `Activations: ${data.activations_used} of ${data.activation_limit} used`,
    expiryLine(data.status, data.expires_at),
  ];
}

/** The license state the update check adds when a key was sent. */
function updateLicenseLine(data: Extract<UpdateInfo, { update_available: true }>): string {
  const expiresAt = data.license_expires_at ?? null;
  switch (data.license_status) {
    case 'active':
      return `License: active, ${expiresAt === null ? 'does not expire' : `expires ${expiresAt}`}${data.auto_renew ? ', renews automatically' : ''}`;
    case 'expired':
      return `License: expired${expiresAt === null ? '' : ` on ${expiresAt}`}`;
    default:
      // Suspended, revoked or cancelled: the expiry date no longer matters.
      return `License: ${data.license_status}`;
  }
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
