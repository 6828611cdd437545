/**
 * What an uploaded file is for, as desktop updaters ask (docs/updaters.md): its operating system
 * and processor (none: any), the updater signature Tauri and Sparkle check, and for a macOS file
 * the oldest macOS it runs on (Sparkle's minimumSystemVersion).
 */
import type { FileArch, FilePlatform } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { WordSelect } from '../../shared/components/fields.js';

export interface FileTarget {
  platform: FilePlatform | null;
  arch: FileArch | null;
  signature: string;
  /** A macOS file only; empty: any macOS. */
  minimumSystemVersion: string;
}

export const NO_TARGET: FileTarget = {
  platform: null,
  arch: null,
  signature: '',
  minimumSystemVersion: '',
};

const PLATFORM_WORDS: Record<FilePlatform, string> = {
  linux: 'Linux',
  windows: 'Windows',
  darwin: 'macOS',
};
const ARCH_WORDS: Record<FileArch, string> = {
  x86_64: 'x86_64',
  aarch64: 'aarch64 (ARM 64-bit)',
  i686: 'i686 (x86 32-bit)',
  armv7: 'armv7',
  universal: 'universal (macOS)',
};

/** What a stored file is for, in words: its platform and processor, and whether it is signed. */
export function targetWords(file: {
  platform: FilePlatform | null;
  arch: FileArch | null;
  signature: string | null;
  minimum_system_version: string | null;
}): string {
  const platform =
    file.platform === null
      ? 'Any platform'
      : file.platform === 'darwin' && file.minimum_system_version !== null
        ? `macOS ${file.minimum_system_version} or later`
        : PLATFORM_WORDS[file.platform];
  const arch = file.arch === null ? 'any processor' : ARCH_WORDS[file.arch];
  return `${platform}, ${arch}${file.signature === null ? '' : '; signed'}`;
}

/** The upload's form fields: a field left at none is not sent. */
export function targetFields(target: FileTarget) {
  const signature = target.signature.trim();
  const minimum = target.minimumSystemVersion.trim();
  return {
    platform: target.platform,
    arch: target.arch,
    signature: signature === '' ? null : signature,
    // Only a macOS file has one: a value left from a platform changed since is not sent.
    minimum_system_version: target.platform !== 'darwin' || minimum === '' ? null : minimum,
  };
}

export function TargetFields({
  target,
  onChange,
}: {
  target: FileTarget;
  onChange: (target: FileTarget) => void;
}) {
  return (
    <div class="row">
      <Field label="Platform" hint="For desktop updaters; none: any.">
        <WordSelect
          name="platform"
          words={PLATFORM_WORDS}
          none="Any platform"
          value={target.platform}
          onChange={(platform) => onChange({ ...target, platform })}
        />
      </Field>
      <Field label="Processor">
        <WordSelect
          name="arch"
          words={ARCH_WORDS}
          none="Any processor"
          value={target.arch}
          onChange={(arch) => onChange({ ...target, arch })}
        />
      </Field>
      {target.platform === 'darwin' && (
        <Field label="Minimum macOS" hint="The oldest macOS it runs on, such as 12.0; empty: any.">
          <input
            name="minimum_system_version"
            inputMode="decimal"
            value={target.minimumSystemVersion}
            onInput={(event) =>
              onChange({ ...target, minimumSystemVersion: event.currentTarget.value })
            }
          />
        </Field>
      )}
      <Field label="Updater signature" hint="Tauri's .sig text or Sparkle's Ed25519 signature.">
        <textarea
          name="signature"
          rows={2}
          value={target.signature}
          onInput={(event) => onChange({ ...target, signature: event.currentTarget.value })}
        />
      </Field>
    </div>
  );
}
