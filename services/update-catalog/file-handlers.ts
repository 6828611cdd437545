import {
  LicensingError,
  invalidRequest,
  minimumSystemVersionProblem,
} from '../../libs/contracts/index.js';
import type { ServedHandlers } from '../../libs/transport/index.js';
import type { PackageFileStore, VersionRecord } from './stores.js';
import { notFound } from './not-found.js';
import { fileView } from './views.js';

type PackageFileHandlers = Pick<
  ServedHandlers<'update-catalog'>,
  'update-catalog.addFile' | 'update-catalog.updateFile' | 'update-catalog.deleteFile'
>;

/** Refuses a file whose target the updaters could not read (libs/contracts/catalog/updaters.ts). */
function checkTarget(file: Parameters<typeof minimumSystemVersionProblem>[0]) {
  const problem = minimumSystemVersionProblem(file);
  if (problem !== null) throw invalidRequest(problem);
}

/**
 * RPC handlers of package files: recorded once the download service has stored the bytes,
 * changed, forgotten. Each write is preceded by the call's deadline check, and followed by
 * `changed` (what the update check answers for the product changed).
 */
export function createPackageFileHandlers({
  packageFiles,
  requireVersion,
  changed,
  clock,
}: {
  packageFiles: PackageFileStore;
  requireVersion: (id: number) => Promise<VersionRecord>;
  changed: (productId: number) => Promise<void>;
  clock: () => Date;
}): PackageFileHandlers {
  return {
    'update-catalog.addFile': async (request, context) => {
      checkTarget(request);
      const version = await requireVersion(request.version_id);
      context.beforeWrite();
      const created = await packageFiles.create({
        file: { ...request, product_id: version.product_id, uploaded_at: clock() },
        beforeEachWrite: () => context.beforeWrite(),
      });
      await changed(created.product_id);
      return fileView(created);
    },

    'update-catalog.updateFile': async ({ id, ...changes }, context) => {
      if (changes.platform !== undefined || changes.minimum_system_version !== undefined) {
        const current = await packageFiles.find(id);
        if (!current) throw LicensingError.from(notFound('File', id));
        checkTarget({
          platform: changes.platform === undefined ? current.platform : changes.platform,
          minimum_system_version:
            changes.minimum_system_version === undefined
              ? current.minimum_system_version
              : changes.minimum_system_version,
        });
      }
      context.beforeWrite();
      const updated = await packageFiles.update(id, changes);
      if (!updated) throw LicensingError.from(notFound('File', id));
      await changed(updated.product_id);
      return fileView(updated);
    },

    'update-catalog.deleteFile': async ({ id }, context) => {
      context.beforeWrite();
      const deleted = await packageFiles.delete(id);
      if (!deleted) throw LicensingError.from(notFound('File', id));
      await changed(deleted.product_id);
      return fileView(deleted);
    },
  };
}
