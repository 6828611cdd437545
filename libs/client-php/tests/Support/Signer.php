<?php

namespace Licensing\Tests\Support;

use Licensing\Http\Response;
use Licensing\Verification\AnswerVerifier;
use Licensing\Verification\Base64;
use Licensing\Verification\PinnedKeys;
use Licensing\Verification\SignatureBase;
use Licensing\Verification\StructuredFields;

/**
 * Signs answers to the requests a fake transport receives, as the server signs them (RFC 9421,
 * the profile of libs/signatures), with an Ed25519 key of a fixed seed.
 */
final class Signer
{
    /** @var string */
    private $secret;
    /** @var string */
    public $x;
    /** @var string */
    public $kid;
    /** @var float seconds; the `created` of the next signature */
    public $now;

    public function __construct(int $seed, float $now)
    {
        $pair = sodium_crypto_sign_seed_keypair(str_repeat(chr($seed), 32));
        $this->secret = sodium_crypto_sign_secretkey($pair);
        $this->x = Base64::encodeUrl(sodium_crypto_sign_publickey($pair));
        $this->kid = PinnedKeys::thumbprint($this->x);
        $this->now = $now;
    }

    /** @return array<string, mixed> the JWK Set that pins this key */
    public function keySet(): array
    {
        return ['keys' => [['kty' => 'OKP', 'crv' => 'Ed25519', 'x' => $this->x, 'kid' => $this->kid, 'use' => 'sig', 'alg' => 'EdDSA']]];
    }

    /**
     * A JSON answer to `$request` (as the fake transport records it), signed.
     *
     * @param array<string, mixed> $request
     * @param array<string, mixed> $body
     */
    public function answer(array $request, int $status, array $body, array $headers = []): Response
    {
        $text = (string) json_encode($body);
        $nonce = isset($request['headers']['Licensing-Nonce']) ? $request['headers']['Licensing-Nonce'] : null;
        $requestDigest = isset($request['headers']['Content-Digest']) ? $request['headers']['Content-Digest'] : null;
        $digest = AnswerVerifier::contentDigest($text);
        $created = (int) floor($this->now);
        $list = [
            'items' => SignatureBase::coveredComponents($nonce !== null, $requestDigest !== null),
            'params' => [['created', $created], ['expires', $created + 300], ['keyid', $this->kid], ['alg', 'ed25519']],
        ];
        $target = SignatureBase::requestTarget($request['url']);
        $base = SignatureBase::build($list, [
            '@status' => (string) $status,
            'content-digest' => $digest,
            SignatureBase::NONCE_HEADER => $nonce,
            '@method;req' => $request['method'],
            '@path;req' => $target['path'],
            '@query;req' => $target['query'],
            'content-digest;req' => $requestDigest,
        ]);
        $signed = [
            'content-type' => 'application/json',
            'content-digest' => $digest,
            'signature-input' => 'licensing=' . StructuredFields::serializeInnerList($list),
            'signature' => 'licensing=:' . base64_encode(sodium_crypto_sign_detached((string) $base, $this->secret)) . ':',
        ];
        if ($nonce !== null) {
            $signed['licensing-nonce'] = $nonce;
        }
        return new Response($status, $headers + $signed, $text);
    }

    /** A callable answer for the fake transport: `$body` signed for whatever request comes. */
    public function answers(int $status, array $body, array $headers = []): callable
    {
        return function (array $request) use ($status, $body, $headers): Response {
            return $this->answer($request, $status, $body, $headers);
        };
    }
}
