<?php

namespace Licensing\Result;

/**
 * What the update check answers (spec 2.6, 4.4). Without a published version only
 * `update_available` (false), `requires_license` and `download_requires` are set.
 */
class UpdateInfo extends Result
{
    /** @var bool a published version exists (the server does not know the installed one) */
    public $update_available = false;
    /** @var string|null product title */
    public $name = null;
    /** @var string|null */
    public $version = null;
    /** @var string|null absolute URL of the download; null for an account-only product */
    public $download_url = null;
    /** @var string|null license_key, activated_identifier, account, or null (public) */
    public $download_requires = null;
    /** @var string|null */
    public $release_notes = null;
    /** @var string|null Y-m-d */
    public $date = null;
    /** @var int|null bytes */
    public $file_size = null;
    /** @var string|null lowercase hex SHA-256 of the package */
    public $sha256 = null;
    /** @var bool */
    public $requires_license = false;
    /** @var string|null only with a covering key */
    public $license_status = null;
    /** @var string|null */
    public $license_expires_at = null;
    /** @var bool|null */
    public $auto_renew = null;
    /** @var string|null */
    public $next_payment_at = null;
    /** @var bool|null */
    public $in_grace = null;
    /** @var string|null */
    public $grace_ends_at = null;
    /** @var string|null */
    public $updates_until = null;
    /** @var string|null with updates_until: the newer version a renewal brings */
    public $newer_version = null;
    /** @var string|null */
    public $newer_requires = null;
}
