import { chmodSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { start, stop, stopAll, tempDir, uploadPackage } from '../support/npm-start.js';

/**
 * What `npm start` keeps in DATA_DIR (the database, packages, the admin token, the signing key)
 * is readable by its user only, whatever the umask it was started with: directories 0700, files
 * 0600; a data directory found open to other users is closed, and the log says so once.
 */

afterAll(stopAll);

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** Every directory and file under `root`, with its mode, `root` itself first. */
function modesUnder(root: string): Array<{ name: string; directory: boolean; mode: number }> {
  const entries = readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => {
    const info = statSync(path.join(root, name));
    return { name, directory: info.isDirectory(), mode: info.mode & 0o777 };
  });
  return [{ name: '.', directory: true, mode: modeOf(root) }, ...entries];
}

describe('npm start keeps its data for its user alone', () => {
  test('DATA_DIR and everything made in it, an uploaded package too: directories 0700, files 0600', async () => {
    const parent = tempDir();
    const dataDir = path.join(parent, 'data');
    try {
      const { child, banner } = await start({ DATA_DIR: dataDir });
      const upload = await uploadPackage(
        banner,
        'Private',
        'private-1.0.0.zip',
        Buffer.from('a private package'),
      );
      expect(upload.status).toBe(201);
      await stop(child);

      const modes = modesUnder(dataDir);
      const names = modes.map((m) => m.name);
      for (const kept of ['mongodb', 'packages', 'admin-token', 'signing-key.pem']) {
        expect(names).toContain(kept);
      }
      const packageFiles = modes.filter(
        (m) => !m.directory && m.name.startsWith('packages') && m.name.includes('private-1.0.0'),
      );
      expect(packageFiles.length).toBeGreaterThan(0);
      const open = modes.filter((m) => m.mode !== (m.directory ? 0o700 : 0o600));
      expect(open).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 120_000);

  test('data directories found open to other users are closed at start, and the log says so once', async () => {
    const dataDir = tempDir();
    try {
      const directories = [dataDir, path.join(dataDir, 'mongodb'), path.join(dataDir, 'packages')];
      for (const directory of directories) {
        mkdirSync(directory, { recursive: true });
        chmodSync(directory, 0o755);
      }
      const { child, output } = await start({ DATA_DIR: dataDir });
      await stop(child);
      expect(directories.map(modeOf)).toEqual([0o700, 0o700, 0o700]);
      const said = output().match(/data directories were open to other users/g) ?? [];
      expect(said).toHaveLength(1);
      for (const directory of directories) expect(output()).toContain(directory);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
