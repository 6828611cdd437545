/** The command line's help and version. */
import { readFileSync } from 'node:fs';

export const USAGE = `Usage: licensing <command> [options]

Commands:
  activate       Activate the license on an identifier   --key --identifier [--name]
  validate       Check the license (and an identifier)    --key [--identifier] [--offline-grace]
  heartbeat      Renew the lease of an activation         --key --identifier [--keep-alive]
  deactivate     Free the activation of an identifier     --key --identifier
  check-update   Show the latest published version        [--key]
  download       Download the package                     --key [--identifier] [--output] [--url]
  checkout       Save an offline license file             --key --identifier [--ttl] [--output]
  verify FILE    Check a license file offline             --product --keys [--identifier]
  keys           Print the server's public key set (JWK Set), to save and pin with --keys

Options:
  --store URL        Store root URL (or LICENSING_STORE)
  --product ID       Product id (or LICENSING_PRODUCT)
  --key KEY          License key (or LICENSING_KEY, which keeps it out of the process list)
  --identifier ID    Domain, device, e-mail address or instance, per the plan's activation type
  --name NAME        Label of the activation (activate)
  --output PATH      Where to save the download (default: .) or the license file
                     (default: ./license-PRODUCT.jwt); a file or an existing directory
  --url URL          Download URL from check-update (default: the download endpoint)
  --ttl DURATION     Lease of the license file, e.g. 30d, 12h, 3600 (seconds); at most the
                     store's maximum (30 days by default)
  --keys FILE        The server's JWK Set (from "licensing keys"): verify every answer and file
  --state FILE       JSON file for the offline grace and clock-tamper detection (with --keys)
  --offline-grace D  How long validate answers from the last verified validation while the
                     server cannot answer (default 72h with --keys and --state; 0: never)
  --keep-alive       heartbeat: keep renewing the lease, at a third of it, until interrupted
                     (Ctrl-C or SIGTERM, exit code 0)
  --timeout SECONDS  Request timeout (default 15)
  --json             Print the result as JSON on stdout
  --progress         Show the download progress bar even when stderr is not a terminal
  --no-progress      Never show it
  -h, --help         Show this help
  -v, --version      Show the version

Exit codes: 0 success, 1 other failure, 2 usage error,
            3 license problem (also an answer or license file that fails verification,
              an expired lease, a clock set back),
            4 temporary failure (connection, timeout, rate limit, server error): retry later.
`;

export function version(): string {
  try {
    const pkg: unknown = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    );
    const v = (pkg as { version?: unknown }).version;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}
