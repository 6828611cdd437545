<?php

namespace Licensing\Result;

/**
 * What validate answers (spec 4.2). `isStale()` is true for the last verified answer, given by
 * the offline grace because the server could not answer now; `checkedAt()` is when the server
 * signed it.
 */
class Validation extends Result
{
    /** @var bool true only for a usable license */
    public $valid = false;
    /** @var string active, expired, suspended, revoked, cancelled, or invalid for an unknown key */
    public $status = '';
    /** @var string */
    public $license_key = '';
    /** @var string|null */
    public $product = null;
    /** @var string|null */
    public $plan = null;
    /** @var string|null */
    public $activation_type = null;
    /** @var int 0 means unlimited */
    public $activation_limit = 0;
    /** @var int */
    public $activations_used = 0;
    /** @var string|null */
    public $expires_at = null;
    /** @var bool true when no identifier was sent, else whether it is activated */
    public $identifier_activated = false;
    /** @var string|null */
    public $lease_expires_at = null;
    /** @var bool */
    public $in_grace = false;
    /** @var string|null */
    public $grace_ends_at = null;
    /** @var string|null */
    public $updates_until = null;
    /** @var string[] */
    public $entitlements = [];
    /** @var string[] of the entitlements asked about, those the license lacks */
    public $entitlements_missing = [];
    /** @var string|null ENTITLEMENTS_MISSING when some are missing */
    public $code = null;

    /** @var string|null */
    private $checkedAt = null;

    /**
     * @param array<string, mixed> $payload
     * @param string|null $checkedAt for an answer of the offline grace: when it was signed
     */
    public function __construct(array $payload, ?string $checkedAt = null)
    {
        parent::__construct($payload);
        $this->checkedAt = $checkedAt;
    }

    /** True when this is the last verified answer, standing in while the server cannot answer. */
    public function isStale(): bool
    {
        return $this->checkedAt !== null;
    }

    /** For a stale answer: when the server signed it (ISO 8601 UTC); null otherwise. */
    public function checkedAt(): ?string
    {
        return $this->checkedAt;
    }
}
