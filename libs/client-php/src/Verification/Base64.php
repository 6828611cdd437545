<?php

namespace Licensing\Verification;

/** Base64 as libs/signatures reads and writes it: both alphabets accepted, padding optional. */
final class Base64
{
    /** Bytes of standard or URL-safe base64, padded or not; null when it is not base64. */
    public static function decode(string $text): ?string
    {
        $standard = rtrim(strtr($text, '-_', '+/'), '=');
        if (preg_match('#^[A-Za-z0-9+/]*$#', $standard) !== 1 || strlen($standard) % 4 === 1) {
            return null;
        }
        $decoded = base64_decode($standard . str_repeat('=', (4 - strlen($standard) % 4) % 4), true);
        return $decoded === false ? null : $decoded;
    }

    public static function encode(string $bytes): string
    {
        return base64_encode($bytes);
    }

    public static function encodeUrl(string $bytes): string
    {
        return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
    }
}
