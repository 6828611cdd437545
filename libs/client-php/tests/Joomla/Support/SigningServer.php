<?php

namespace Licensing\Tests\Joomla\Support;

use Licensing\Http\Response;
use Licensing\Verification\AnswerVerifier;
use Licensing\Verification\Base64;
use Licensing\Verification\PinnedKeys;
use Licensing\Verification\SignatureBase;
use Licensing\Verification\StructuredFields;

/**
 * Signs answers as the server does (RFC 9421, the `licensing` profile), with a key of its own,
 * so that a client pinning `jwks()` verifies them and keeps them for its offline grace.
 */
final class SigningServer
{
    /** @var string */
    private $secretKey;
    /** @var string */
    private $x;
    /** @var string */
    private $kid;

    public function __construct()
    {
        $pair = sodium_crypto_sign_keypair();
        $this->secretKey = sodium_crypto_sign_secretkey($pair);
        $this->x = Base64::encodeUrl(sodium_crypto_sign_publickey($pair));
        $this->kid = PinnedKeys::thumbprint($this->x);
    }

    /** The key set to pin, as `GET {api_base}/keys` answers. */
    public function jwks(): string
    {
        return (string) json_encode(['keys' => [['kty' => 'OKP', 'crv' => 'Ed25519', 'x' => $this->x, 'kid' => $this->kid]]]);
    }

    /**
     * A JSON answer to `$request` (as FakeTransport records it), signed at `$created`.
     *
     * @param array<string, mixed> $request
     * @param array<string, mixed> $body
     */
    public function answer(array $request, int $status, array $body, float $created): Response
    {
        $json = (string) json_encode($body);
        $digest = AnswerVerifier::contentDigest($json);
        $nonce = $request['headers']['Licensing-Nonce'];
        $requestDigest = isset($request['headers']['Content-Digest']) ? $request['headers']['Content-Digest'] : null;
        $list = [
            'items' => SignatureBase::coveredComponents(true, $requestDigest !== null),
            'params' => [['created', (int) $created], ['expires', (int) $created + 300], ['keyid', $this->kid], ['alg', 'ed25519']],
        ];
        $target = SignatureBase::requestTarget($request['url']);
        $base = SignatureBase::build($list, [
            '@status' => (string) $status,
            'content-digest' => $digest,
            SignatureBase::NONCE_HEADER => $nonce,
            '@method;req' => strtoupper($request['method']),
            '@path;req' => $target['path'],
            '@query;req' => $target['query'],
            'content-digest;req' => $requestDigest,
        ]);
        $signature = sodium_crypto_sign_detached((string) $base, $this->secretKey);
        return new Response($status, [
            'content-type' => 'application/json',
            'content-digest' => $digest,
            SignatureBase::NONCE_HEADER => $nonce,
            'signature-input' => SignatureBase::LABEL . '=' . StructuredFields::serializeInnerList($list),
            'signature' => SignatureBase::LABEL . '=:' . base64_encode($signature) . ':',
        ], $json);
    }
}
