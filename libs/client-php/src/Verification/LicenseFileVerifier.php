<?php

namespace Licensing\Verification;

use Licensing\LicensingException;
use Licensing\Result\LicenseFile;
use Licensing\Validation\OfflineGrace;
use Licensing\Validation\SignedTime;

/**
 * Offline license files (`POST /licenses/checkout`), checked as
 * libs/client/src/verification/license-file.ts does, against the pinned keys only: a JWS
 * (compact, EdDSA, `typ: licensing-file+jwt`, payload `ver: 1`).
 */
final class LicenseFileVerifier
{
    public const TYPE = 'licensing-file+jwt';
    public const VERSION = 1;

    /**
     * Checks, in this order: signed by a pinned key (`SIGNATURE_INVALID`, also for anything that
     * is not a version 1 license file), the clock not set back (`CLOCK_TAMPERED`), the product
     * (`PRODUCT_MISMATCH`), the identifier when given (`IDENTIFIER_MISMATCH`), the lease
     * (`LICENSE_FILE_EXPIRED`).
     *
     * @throws LicensingException
     */
    public static function verify(
        string $file,
        ?PinnedKeys $keys,
        int $productId,
        ?string $identifier,
        float $now,
        float $tolerance,
        SignedTime $signedTime
    ): LicenseFile {
        $read = self::read($file);
        if ($read === null) {
            throw self::invalid('it is not a license file');
        }
        if ($keys === null || $keys->isEmpty()) {
            throw self::invalid('no public key of the license server is pinned');
        }
        if (!$keys->has($read['kid'])) {
            throw self::invalid('it is signed by a key that is not pinned (' . $read['kid'] . ')');
        }
        if (!$keys->verifies($read['kid'], $read['signingInput'], $read['signature'])) {
            throw self::invalid('its signature does not match');
        }
        $payload = self::payload($read['payload']);
        if ($payload === null) {
            throw self::invalid('it is not a version ' . self::VERSION . ' license file this client reads');
        }
        $latest = max($signedTime->get(), $payload['issued']);
        $signedTime->note($payload['issued']);
        if ($now < $latest - $tolerance) {
            throw OfflineGrace::clockTampered($now, $latest);
        }
        if ($payload['product_id'] !== $productId) {
            throw new LicensingException('PRODUCT_MISMATCH', sprintf(
                'The license file is for product %d, not product %d.',
                $payload['product_id'],
                $productId
            ));
        }
        if ($identifier !== null && $identifier !== $payload['identifier']) {
            throw new LicensingException('IDENTIFIER_MISMATCH', sprintf(
                'The license file is for "%s", not "%s".',
                $payload['identifier'],
                $identifier
            ));
        }
        if ($now >= $payload['lease_end']) {
            throw new LicensingException('LICENSE_FILE_EXPIRED', sprintf(
                'The license file\'s lease ended at %s: check it out again.',
                $payload['expires_at']
            ));
        }
        return new LicenseFile(self::data($payload));
    }

    /** @return array<string, mixed>|null the parts of a JWS of this type */
    private static function read(string $text): ?array
    {
        $parts = explode('.', trim($text));
        if (count($parts) !== 3) {
            return null;
        }
        $header = self::json($parts[0]);
        $payload = self::json($parts[1]);
        $signature = Base64::decode($parts[2]);
        if ($header === null || !isset($header['alg'], $header['typ']) || $header['alg'] !== 'EdDSA' || $header['typ'] !== self::TYPE) {
            return null;
        }
        if (!isset($header['kid']) || !is_string($header['kid']) || $signature === null || $payload === null) {
            return null;
        }
        return [
            'kid' => $header['kid'],
            'payload' => $payload,
            'signingInput' => $parts[0] . '.' . $parts[1],
            'signature' => $signature,
        ];
    }

    /** @return array<string, mixed>|null a JSON object in base64url (no `+`, `/` or `=`) */
    private static function json(string $part): ?array
    {
        $bytes = Base64::decode($part);
        if ($bytes === null || preg_match('#[+/=]#', $part) === 1 || preg_match('//u', $bytes) !== 1) {
            return null;
        }
        $value = json_decode($bytes, true, 64);
        if (!is_array($value) || substr(ltrim($bytes), 0, 1) !== '{') {
            return null;
        }
        return $value;
    }

    /**
     * @param array<string, mixed> $payload
     * @return array<string, mixed>|null the fields of a version 1 payload this client relies on
     */
    private static function payload(array $payload): ?array
    {
        if (!isset($payload['ver']) || $payload['ver'] !== self::VERSION) {
            return null;
        }
        if (!isset($payload['product_id']) || !is_int($payload['product_id'])) {
            return null;
        }
        foreach (['identifier', 'issued_at', 'expires_at'] as $name) {
            if (!isset($payload[$name]) || !is_string($payload[$name])) {
                return null;
            }
        }
        $license = isset($payload['license']) ? $payload['license'] : null;
        if (!is_array($license) || !isset($license['valid'], $license['status'], $license['license_key'])) {
            return null;
        }
        if (!is_bool($license['valid']) || !is_string($license['status']) || !is_string($license['license_key'])) {
            return null;
        }
        $issued = self::time($payload['issued_at']);
        $leaseEnd = self::time($payload['expires_at']);
        if ($issued === null || $leaseEnd === null) {
            return null;
        }
        $payload['issued'] = $issued;
        $payload['lease_end'] = $leaseEnd;
        return $payload;
    }

    /** Seconds since the epoch of an ISO 8601 timestamp, or null. */
    private static function time(string $text): ?float
    {
        if (preg_match('/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/', $text) !== 1) {
            return null;
        }
        try {
            return (float) (new \DateTimeImmutable($text))->format('U.u');
        } catch (\Exception $unreadable) {
            return null;
        }
    }

    /**
     * @param array<string, mixed> $payload
     * @return array<string, mixed>
     */
    private static function data(array $payload): array
    {
        $license = $payload['license'];
        $get = static function (string $name, $default) use ($license) {
            return array_key_exists($name, $license) && $license[$name] !== null ? $license[$name] : $default;
        };
        return [
            'valid' => $license['valid'],
            'status' => $license['status'],
            'license_key' => $license['license_key'],
            'product' => $get('product', null),
            'plan' => $get('plan', null),
            'activation_type' => $get('activation_type', null),
            'activation_limit' => $get('activation_limit', 0),
            'activations_used' => $get('activations_used', 0),
            'expires_at' => $get('expires_at', null),
            // Files signed before expiry terms existed carry none: no grace, no limit.
            'in_grace' => $get('in_grace', false),
            'grace_ends_at' => $get('grace_ends_at', null),
            'updates_until' => $get('updates_until', null),
            'identifier_activated' => true,
            'entitlements' => is_array($get('entitlements', null)) ? $license['entitlements'] : [],
            'entitlements_missing' => [],
            'code' => null,
            'identifier' => $payload['identifier'],
            'product_id' => $payload['product_id'],
            'issued_at' => $payload['issued_at'],
            'lease_expires_at' => $payload['expires_at'],
        ];
    }

    private static function invalid(string $reason): LicensingException
    {
        return new LicensingException(
            LicensingException::SIGNATURE_INVALID,
            'The license file failed verification: ' . $reason . '.'
        );
    }
}
