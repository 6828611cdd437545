<?php

namespace Licensing\Result;

/** What activate (spec 4.1) and deactivate answer: the license's state and the identifier. */
class Activation extends Result
{
    /** @var string active, expired, suspended, revoked or cancelled */
    public $status = '';
    /** @var string */
    public $license_key = '';
    /** @var string|null product title */
    public $product = null;
    /** @var string|null plan name */
    public $plan = null;
    /** @var string|null domain, device, seat or instance */
    public $activation_type = null;
    /** @var int 0 means unlimited */
    public $activation_limit = 0;
    /** @var int */
    public $activations_used = 0;
    /** @var string|null ISO 8601 UTC; null for a license that does not expire */
    public $expires_at = null;
    /** @var string the normalised identifier the server stored: deactivate with it later */
    public $identifier = '';
    /** @var string|null when this activation lapses unless renewed; null without a lease */
    public $lease_expires_at = null;
    /** @var bool past its expiry but within the plan's grace days */
    public $in_grace = false;
    /** @var string|null */
    public $grace_ends_at = null;
    /** @var string|null */
    public $updates_until = null;
    /** @var string[] the license's live entitlement codes */
    public $entitlements = [];
}
