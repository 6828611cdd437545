/** What the command line writes to and reads from, its exit codes and its usage errors. */

/** Exit codes of the command line. */
export const EXIT = {
  /** The operation succeeded (validate: the license is valid and the identifier activated). */
  OK: 0,
  /** Any other failure: an invalid request, an error code this client does not know. */
  FAILURE: 1,
  /** Wrong command-line usage. */
  USAGE: 2,
  /** The service answered about the license: invalid, expired, limit reached, not activated... */
  LICENSE: 3,
  /** Says nothing about the license: connection failure, timeout, rate limit, server error. Retry later. */
  TRANSIENT: 4,
} as const;

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Ends `heartbeat --keep-alive` when aborted; default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
}

export const COMMANDS = [
  'activate',
  'validate',
  'heartbeat',
  'deactivate',
  'check-update',
  'download',
  'checkout',
  'verify',
  'keys',
] as const;
export type Command = (typeof COMMANDS)[number];

/** Wrong command-line usage: reported with a pointer to the help, exit code 2. */
export class UsageError extends Error {}

export function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

export function usage(io: CliIo, message: string): number {
  io.stderr.write(`licensing: ${message}\nRun "licensing --help" for usage.\n`);
  return EXIT.USAGE;
}
