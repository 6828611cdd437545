<?php

namespace Licensing\Calls;

use Licensing\Http\Response;
use Licensing\LicensingException;
use Licensing\Validation\SignedTime;
use Licensing\Verification\AnswerVerifier;
use Licensing\Verification\Base64;
use Licensing\Verification\SignedAnswer;

/**
 * One HTTP exchange of the API: the request (with a fresh nonce and the body's digest when
 * verifying) and its answer, checked against the pinned keys before anything in it is read.
 */
final class Exchange
{
    /** @var Settings */
    private $settings;
    /** @var SignedTime */
    private $signedTime;

    public function __construct(Settings $settings, SignedTime $signedTime)
    {
        $this->settings = $settings;
        $this->signedTime = $signedTime;
    }

    /**
     * @param float $deadline microtime(true) by which the call must be done
     * @throws LicensingException CONNECTION_ERROR, INVALID_RESPONSE or SIGNATURE_INVALID
     */
    public function send(Operation $operation, float $deadline): Outcome
    {
        $keys = $this->settings->keys;
        $nonce = $keys !== null ? Base64::encodeUrl(random_bytes(24)) : null;
        // Sent with the body, checked by the server and covered by the answer's signature: an
        // answer to a request with other form fields (another key) cannot pass for this one's.
        $requestDigest = $keys !== null && $operation->body !== null ? AnswerVerifier::contentDigest($operation->body) : null;
        $headers = self::callersHeaders($this->settings->headers);
        $headers['Accept'] = 'application/json';
        if ($operation->body !== null) {
            $headers['Content-Type'] = 'application/x-www-form-urlencoded';
        }
        if ($nonce !== null) {
            $headers['Licensing-Nonce'] = $nonce;
        }
        if ($requestDigest !== null) {
            $headers['Content-Digest'] = $requestDigest;
        }
        $timeout = max(0.001, $deadline - microtime(true));
        $response = $this->settings->transport->send($operation->method, $operation->url, $headers, $operation->body, $timeout);
        $read = new Outcome($response, null, null);
        // An answer with nothing readable says nothing, signed or not; anything else is read
        // only once verified.
        if ($read->failure !== null && $read->failure->getErrorCode() === LicensingException::INVALID_RESPONSE) {
            throw $read->failure;
        }
        if ($keys === null || $nonce === null) {
            return $read;
        }
        $answer = new SignedAnswer(
            $operation->method,
            $operation->url,
            $nonce,
            $requestDigest,
            $response->status,
            self::signedHeaders($response),
            $response->body
        );
        $verified = AnswerVerifier::verify($keys, $answer, $this->settings->now(), $this->settings->clockTolerance);
        if (is_string($verified)) {
            throw new LicensingException(
                LicensingException::SIGNATURE_INVALID,
                'The server\'s answer failed verification: ' . $verified . '.',
                $response->status
            );
        }
        $this->signedTime->note($verified);
        return new Outcome($response, $answer, $verified);
    }

    /**
     * The caller's headers, less those the client sets itself, whatever their case; with the
     * client's User-Agent unless the caller gave one.
     *
     * @param array<string, string> $given
     * @return array<string, string>
     */
    private static function callersHeaders(array $given): array
    {
        $headers = [];
        $agent = 'licensing-client-php/1.0 PHP/' . PHP_VERSION;
        foreach ($given as $name => $value) {
            $lower = strtolower($name);
            if ($lower === 'user-agent') {
                $agent = $value;
            } elseif (!in_array($lower, ['accept', 'content-type', 'licensing-nonce', 'content-digest'], true)) {
                $headers[$name] = $value;
            }
        }
        return ['User-Agent' => $agent] + $headers;
    }

    /** @return array<string, string> */
    private static function signedHeaders(Response $response): array
    {
        $kept = [];
        foreach (SignedAnswer::HEADERS as $name) {
            $value = $response->header($name);
            if ($value !== null) {
                $kept[$name] = $value;
            }
        }
        return $kept;
    }
}
