<?php

namespace Licensing\Verification;

/**
 * The server's public keys the client trusts, by id: of a JWK Set (`GET {api_base}/keys`), only
 * the Ed25519 keys whose `kid` is their RFC 7638 thumbprint, so a set cannot name one key with
 * another's id.
 */
final class PinnedKeys
{
    /** @var array<string, string> raw 32-byte public keys by kid */
    private $keys = [];

    /**
     * @param array<int, mixed> $jwks
     */
    private function __construct(array $jwks)
    {
        foreach ($jwks as $jwk) {
            if (!is_array($jwk) || !isset($jwk['kty'], $jwk['crv'], $jwk['x'], $jwk['kid'])) {
                continue;
            }
            if ($jwk['kty'] !== 'OKP' || $jwk['crv'] !== 'Ed25519') {
                continue;
            }
            if (!is_string($jwk['x']) || !is_string($jwk['kid'])) {
                continue;
            }
            $raw = Base64::decode($jwk['x']);
            if ($raw === null || strlen($raw) !== 32 || self::thumbprint($jwk['x']) !== $jwk['kid']) {
                continue;
            }
            $this->keys[$jwk['kid']] = $raw;
        }
    }

    /**
     * The `keys` option: a JWK Set or a list of JWKs, as an array or as JSON.
     *
     * @param mixed $keys
     * @throws \InvalidArgumentException when it is neither
     */
    public static function fromOption($keys): self
    {
        if (is_string($keys)) {
            $decoded = json_decode($keys, true);
            if (!is_array($decoded)) {
                throw new \InvalidArgumentException('keys must be a JWK Set ({"keys": [...]}) or a list of JWKs: the JSON cannot be read.');
            }
            $keys = $decoded;
        }
        if (is_array($keys) && isset($keys['keys']) && is_array($keys['keys'])) {
            return new self(array_values($keys['keys']));
        }
        if (is_array($keys) && ($keys === [] || array_keys($keys) === range(0, count($keys) - 1))) {
            return new self($keys);
        }
        throw new \InvalidArgumentException('keys must be a JWK Set ({"keys": [...]}) or a list of JWKs.');
    }

    /** RFC 7638: base64url of the SHA-256 of the key's required members, in lexical order. */
    public static function thumbprint(string $x): string
    {
        $members = json_encode(['crv' => 'Ed25519', 'kty' => 'OKP', 'x' => $x], JSON_UNESCAPED_SLASHES);
        return Base64::encodeUrl(hash('sha256', (string) $members, true));
    }

    public function isEmpty(): bool
    {
        return $this->keys === [];
    }

    public function has(string $kid): bool
    {
        return isset($this->keys[$kid]);
    }

    /** Whether `$signature` is the Ed25519 signature of `$message` by the pinned key `$kid`. */
    public function verifies(string $kid, string $message, string $signature): bool
    {
        if (!isset($this->keys[$kid]) || strlen($signature) !== SODIUM_CRYPTO_SIGN_BYTES) {
            return false;
        }
        try {
            return sodium_crypto_sign_verify_detached($signature, $message, $this->keys[$kid]);
        } catch (\SodiumException $error) {
            return false;
        }
    }
}
