<?php

namespace Licensing\Result;

/**
 * What `verifyLicenseFile` answers: the license's state the file holds, as validate reports it,
 * with the file's identifier, product and lease.
 */
class LicenseFile extends Validation
{
    /** @var string the normalised identifier the file is for */
    public $identifier = '';
    /** @var int */
    public $product_id = 0;
    /** @var string ISO 8601 UTC */
    public $issued_at = '';
    /** @var string end of the lease, ISO 8601 UTC (`expires_at` is the license's own expiry) */
    public $lease_expires_at = '';

    /**
     * @param array<string, mixed> $payload
     */
    public function __construct(array $payload)
    {
        parent::__construct($payload, null);
    }
}
