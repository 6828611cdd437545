/**
 * The `licensing` command line: one subcommand per operation, readable output or `--json`, a
 * progress bar on downloads, and exit codes that tell success, license problems and transient
 * failures apart. With `--keys` it verifies what the server signed; `--state` is its store for
 * the offline grace and clock-tamper detection. Node only.
 */
import { commonOptions, parseArguments } from './cli-arguments.js';
import { clientCommand, verifyCommand } from './cli-commands.js';
import { USAGE, version } from '../cli-help.js';
import {
  COMMANDS,
  defaultIo,
  EXIT,
  usage,
  UsageError,
  type CliIo,
  type Command,
} from './cli-io.js';

export { EXIT, type CliIo, type Output } from './cli-io.js';

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let parsed;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    return usage(io, error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  if (values.help || positionals[0] === 'help') {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const command = positionals[0];
  if (command === undefined) return usage(io, 'No command given.');
  if (!(COMMANDS as readonly string[]).includes(command)) {
    return usage(io, `Unknown command: ${command}`);
  }
  const arity = command === 'verify' ? 2 : 1;
  if (positionals.length > arity) return usage(io, `Unexpected argument: ${positionals[arity]}`);

  try {
    const known = command as Command;
    const common = await commonOptions(values, known);
    const run = { io, command: known, values, positionals, common };
    return known === 'verify' ? await verifyCommand(run) : await clientCommand(run);
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message);
    throw error;
  }
}
