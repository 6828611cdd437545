<?php

namespace Licensing\Verification;

/**
 * Checks an answer's `licensing` signature as libs/client/src/verification/verify.ts does: made
 * by a pinned key over this request (method, path, query, and the digest of the body it sent),
 * this status, a `Content-Digest` that matches the body's bytes, and the echoed nonce; `created`
 * no later than now + tolerance and `expires` no earlier than now - tolerance.
 */
final class AnswerVerifier
{
    /**
     * @return int|string the signature's `created` (seconds), or the reason it fails
     */
    public static function verify(PinnedKeys $keys, SignedAnswer $answer, float $now, float $tolerance, bool $checkTime = true)
    {
        if ($keys->isEmpty()) {
            return 'none of the pinned keys is a usable Ed25519 key';
        }
        $read = self::readSignature($answer->header('signature-input'), $answer->header('signature'), $answer->requestDigest !== null);
        if (is_string($read)) {
            return $read;
        }
        $kid = $read['keyid'];
        if (!$keys->has($kid)) {
            return 'it is signed by a key that is not pinned (' . $kid . ')';
        }
        $contentDigest = $answer->header('content-digest');
        if ($contentDigest === null) {
            return 'it has no Content-Digest';
        }
        $named = self::sha256OfContentDigest($contentDigest);
        if ($named === null) {
            return 'its Content-Digest names no SHA-256';
        }
        if (!hash_equals($named, hash('sha256', $answer->body, true))) {
            return 'its body does not match its Content-Digest';
        }
        $echoed = $answer->header(SignatureBase::NONCE_HEADER);
        if ($echoed !== $answer->nonce) {
            return 'it does not echo the nonce of this request';
        }
        $target = SignatureBase::requestTarget($answer->url);
        $base = SignatureBase::build($read['list'], [
            '@status' => (string) $answer->status,
            'content-digest' => $contentDigest,
            SignatureBase::NONCE_HEADER => $echoed,
            '@method;req' => strtoupper($answer->method),
            '@path;req' => $target['path'],
            '@query;req' => $target['query'],
            'content-digest;req' => $answer->requestDigest,
        ]);
        if ($base === null) {
            return 'its signature covers a component this client does not check';
        }
        if (!$keys->verifies($kid, $base, $read['signature'])) {
            return 'its signature does not match this answer to this request';
        }
        $created = $read['created'];
        if (!$checkTime) {
            return $created;
        }
        if ($created > $now + $tolerance) {
            return sprintf('it was signed at %s, later than this device\'s clock (%s) allows', self::iso($created), self::iso($now));
        }
        if ($read['expires'] < $now - $tolerance) {
            return sprintf('its signature expired at %s (this device\'s clock: %s)', self::iso($read['expires']), self::iso($now));
        }
        return $created;
    }

    /** RFC 9530: the `Content-Digest` of bytes. */
    public static function contentDigest(string $bytes): string
    {
        return 'sha-256=:' . base64_encode(hash('sha256', $bytes, true)) . ':';
    }

    /** The SHA-256 a `Content-Digest` field names (32 raw bytes), or null. */
    public static function sha256OfContentDigest(string $field): ?string
    {
        $members = StructuredFields::parseDictionary($field);
        if ($members === null || !isset($members['sha-256'])) {
            return null;
        }
        $member = $members['sha-256'];
        if (StructuredFields::isInnerList($member) || !$member['value'] instanceof Bytes) {
            return null;
        }
        return strlen($member['value']->value) === 32 ? $member['value']->value : null;
    }

    /** ISO 8601 UTC with milliseconds, as JavaScript's toISOString writes it. */
    public static function iso(float $seconds): string
    {
        $whole = (int) floor($seconds);
        $milliseconds = (int) round(($seconds - $whole) * 1000);
        if ($milliseconds === 1000) {
            $whole++;
            $milliseconds = 0;
        }
        return gmdate('Y-m-d\TH:i:s', $whole) . sprintf('.%03dZ', $milliseconds);
    }

    /**
     * The `licensing` signature of this profile, or why the answer has none.
     *
     * @return array<string, mixed>|string
     */
    private static function readSignature(?string $input, ?string $signature, bool $requestDigest)
    {
        if ($input === null || $signature === null) {
            return 'the answer is not signed';
        }
        $lists = StructuredFields::parseDictionary($input);
        $signatures = StructuredFields::parseDictionary($signature);
        $list = $lists !== null && isset($lists[SignatureBase::LABEL]) ? $lists[SignatureBase::LABEL] : null;
        $signed = $signatures !== null && isset($signatures[SignatureBase::LABEL]) ? $signatures[SignatureBase::LABEL] : null;
        if ($list === null || !StructuredFields::isInnerList($list)) {
            return 'no licensing signature input';
        }
        if ($signed === null || StructuredFields::isInnerList($signed) || !$signed['value'] instanceof Bytes) {
            return 'no licensing signature';
        }
        $covered = array_map([StructuredFields::class, 'serializeItem'], $list['items']);
        foreach (SignatureBase::coveredComponents(true, $requestDigest) as $wanted) {
            if (!in_array(StructuredFields::serializeItem($wanted), $covered, true)) {
                return 'the signature does not cover ' . StructuredFields::serializeItem($wanted);
            }
        }
        $params = [];
        foreach ($list['params'] as $param) {
            if (!array_key_exists($param[0], $params)) {
                $params[$param[0]] = $param[1];
            }
        }
        $get = static function (string $name) use ($params) {
            return array_key_exists($name, $params) ? $params[$name] : null;
        };
        if ($get('alg') !== SignatureBase::ALGORITHM) {
            return 'the signature is not ed25519';
        }
        if (!is_int($get('created')) || !is_int($get('expires')) || !is_string($get('keyid'))) {
            return 'the signature lacks created, expires or keyid';
        }
        return [
            'list' => $list,
            'created' => $get('created'),
            'expires' => $get('expires'),
            'keyid' => $get('keyid'),
            'signature' => $signed['value']->value,
        ];
    }
}
