<?php

namespace Licensing;

/**
 * The one exception every call of the client throws on failure: the server's refusal (its code
 * and message), or the client's own (`CONNECTION_ERROR`, `INVALID_RESPONSE`,
 * `SIGNATURE_INVALID`, and for license files `LICENSE_FILE_EXPIRED`, `IDENTIFIER_MISMATCH`,
 * `CLOCK_TAMPERED`).
 */
class LicensingException extends \RuntimeException
{
    public const CONNECTION_ERROR = 'CONNECTION_ERROR';
    public const INVALID_RESPONSE = 'INVALID_RESPONSE';
    public const SIGNATURE_INVALID = 'SIGNATURE_INVALID';

    /** Codes that are an answer about the license, or a refusal to trust what claims to be one. */
    private const LICENSE_PROBLEMS = [
        'LICENSE_INVALID',
        'PRODUCT_MISMATCH',
        'LICENSE_EXPIRED',
        'ACTIVATION_LIMIT_REACHED',
        'USAGE_LIMIT_REACHED',
        'ACTIVATION_REQUIRED',
        'ACTIVATION_NOT_FOUND',
        'TRIAL_ALREADY_USED',
        'SIGNATURE_INVALID',
        'LICENSE_FILE_EXPIRED',
        'IDENTIFIER_MISMATCH',
        'CLOCK_TAMPERED',
    ];

    /** Codes that say nothing about the license (spec 7, rule 2). */
    private const TRANSIENT = ['RATE_LIMITED', 'INTERNAL_ERROR', 'CONNECTION_ERROR', 'INVALID_RESPONSE'];

    /** @var string */
    private $errorCode;
    /** @var int */
    private $httpStatus;
    /** @var int|null */
    private $retryAfter;
    /** @var array<string, mixed> */
    private $details;

    /**
     * @param array<string, mixed> $details extra fields of the error object
     */
    public function __construct(
        string $errorCode,
        string $message,
        int $httpStatus = 0,
        ?int $retryAfter = null,
        array $details = [],
        ?\Throwable $previous = null
    ) {
        parent::__construct($message, 0, $previous);
        $this->errorCode = $errorCode;
        $this->httpStatus = $httpStatus;
        $this->retryAfter = $retryAfter;
        $this->details = $details;
    }

    /** The spec's code (`LICENSE_EXPIRED`, ...) or the client's (`CONNECTION_ERROR`, ...). */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }

    /** The HTTP status of the answer; 0 when there was none. */
    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** Seconds to wait before trying again, from the answer's `Retry-After`. */
    public function getRetryAfter(): ?int
    {
        return $this->retryAfter;
    }

    /** @return array<string, mixed> extra fields, e.g. `activation_limit` and `activations_used` */
    public function getDetails(): array
    {
        return $this->details;
    }

    /** True when the answer is about the license: refuse, or ask the customer to act. */
    public function isLicenseProblem(): bool
    {
        return in_array($this->errorCode, self::LICENSE_PROBLEMS, true);
    }

    /**
     * True when the failure says nothing about the license: keep the last good state and try
     * later, never lock the customer out for it. An unknown code on a 429 or 5xx answer (a proxy,
     * a newer server) counts too.
     */
    public function isTransient(): bool
    {
        if (in_array($this->errorCode, self::TRANSIENT, true)) {
            return true;
        }
        return !$this->isLicenseProblem() && ($this->httpStatus === 429 || $this->httpStatus >= 500);
    }
}
