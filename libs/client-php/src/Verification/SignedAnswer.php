<?php

namespace Licensing\Verification;

/**
 * An answer as its signature covers it, with the request it answers: what the client checks,
 * and what the offline grace keeps (as JSON, in the form the TypeScript client keeps it) to
 * check again later.
 */
final class SignedAnswer
{
    /** The answer's fields a verification reads, all that is kept of its headers. */
    public const HEADERS = ['signature-input', 'signature', 'content-digest', SignatureBase::NONCE_HEADER];

    /** @var string */
    public $method;
    /** @var string the URL as sent */
    public $url;
    /** @var string the nonce sent in `Licensing-Nonce` */
    public $nonce;
    /** @var string|null the `Content-Digest` sent with the request's body; null without one */
    public $requestDigest;
    /** @var int */
    public $status;
    /** @var array<string, string> by lower-case name */
    public $headers;
    /** @var string the body's bytes */
    public $body;

    /**
     * @param array<string, string> $headers by lower-case name
     */
    public function __construct(string $method, string $url, string $nonce, ?string $requestDigest, int $status, array $headers, string $body)
    {
        $this->method = $method;
        $this->url = $url;
        $this->nonce = $nonce;
        $this->requestDigest = $requestDigest;
        $this->status = $status;
        $this->headers = [];
        foreach ($headers as $name => $value) {
            $this->headers[strtolower((string) $name)] = (string) $value;
        }
        $this->body = $body;
    }

    public function header(string $name): ?string
    {
        return isset($this->headers[$name]) ? $this->headers[$name] : null;
    }

    public function toJson(): string
    {
        $headers = [];
        foreach (self::HEADERS as $name) {
            if (isset($this->headers[$name])) {
                $headers[$name] = $this->headers[$name];
            }
        }
        return (string) json_encode([
            'method' => $this->method,
            'url' => $this->url,
            'nonce' => $this->nonce,
            'requestDigest' => $this->requestDigest,
            'status' => $this->status,
            'headers' => (object) $headers,
            'body' => base64_encode($this->body),
        ], JSON_UNESCAPED_SLASHES);
    }

    /** The answer kept by `toJson`, or null when the text is not one. */
    public static function fromJson(string $text): ?self
    {
        $kept = json_decode($text, true);
        if (!is_array($kept)) {
            return null;
        }
        foreach (['method', 'url', 'nonce', 'body'] as $name) {
            if (!isset($kept[$name]) || !is_string($kept[$name])) {
                return null;
            }
        }
        $body = Base64::decode($kept['body']);
        if ($body === null || !isset($kept['status']) || !is_int($kept['status']) || !isset($kept['headers']) || !is_array($kept['headers'])) {
            return null;
        }
        $digest = isset($kept['requestDigest']) && is_string($kept['requestDigest']) ? $kept['requestDigest'] : null;
        $headers = [];
        foreach ($kept['headers'] as $name => $value) {
            if (is_string($value)) {
                $headers[(string) $name] = $value;
            }
        }
        return new self($kept['method'], $kept['url'], $kept['nonce'], $digest, $kept['status'], $headers, $body);
    }
}
