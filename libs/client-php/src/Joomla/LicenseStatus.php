<?php

namespace Licensing\Joomla;

/**
 * What the last license check of a Joomla extension found, as kept between checks. The words
 * shown to the administrator come from `StatusMessage`, at display time, in the site's language.
 */
final class LicenseStatus
{
    public const ACTIVE = 'active';
    public const EXPIRED = 'expired';
    public const SUSPENDED = 'suspended';
    public const REVOKED = 'revoked';
    public const CANCELLED = 'cancelled';
    /** A status this client does not know (a newer server): not usable, said as it is. */
    public const INACTIVE = 'inactive';
    /** The server knows no license with this key. */
    public const NOT_FOUND = 'not_found';
    /** The key is a license of another product. */
    public const WRONG_PRODUCT = 'wrong_product';
    /** No Download Key is entered: nothing was asked. */
    public const NO_KEY = 'no_key';
    /** No answer, and none recent enough for the offline grace. */
    public const UNREACHABLE = 'unreachable';

    private const LICENSE_STATES = [self::ACTIVE, self::EXPIRED, self::SUSPENDED, self::REVOKED, self::CANCELLED];

    /** @var string one of the constants above */
    public $state;
    /** @var string|null the product the server named */
    public $product;
    /** @var string|null ISO 8601 UTC; null for a license that does not expire */
    public $expiresAt;
    /** @var string|null ISO 8601 UTC: when the server gave the answer this is made of */
    public $checkedAt;
    /** @var bool true when the server could not answer and this is its last answer, in the grace */
    public $stale;
    /** @var string the server's status word, or the error's message (plain words) */
    public $detail;

    public function __construct(
        string $state,
        ?string $product = null,
        ?string $expiresAt = null,
        ?string $checkedAt = null,
        bool $stale = false,
        string $detail = ''
    ) {
        $this->state = $state;
        $this->product = $product;
        $this->expiresAt = $expiresAt;
        $this->checkedAt = $checkedAt;
        $this->stale = $stale;
        $this->detail = $detail;
    }

    /** The state for a license status validate answered (spec 3.1); `invalid` is an unknown key. */
    public static function forLicenseStatus(string $status): string
    {
        if ($status === 'invalid') {
            return self::NOT_FOUND;
        }
        return in_array($status, self::LICENSE_STATES, true) ? $status : self::INACTIVE;
    }

    /** True when the extension may be used and updated with this key. */
    public function isActive(): bool
    {
        return $this->state === self::ACTIVE;
    }

    /** True for a state the administrator should act on, or at least be told about. */
    public function needsAttention(): bool
    {
        return !$this->isActive() || $this->stale;
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return [
            'state' => $this->state,
            'product' => $this->product,
            'expires_at' => $this->expiresAt,
            'checked_at' => $this->checkedAt,
            'stale' => $this->stale,
            'detail' => $this->detail,
        ];
    }

    /** @param array<string, mixed> $fields what `toArray()` gave; null when they are not that */
    public static function fromArray(array $fields): ?self
    {
        if (!isset($fields['state']) || !is_string($fields['state'])) {
            return null;
        }
        $text = static function (string $name) use ($fields): ?string {
            return isset($fields[$name]) && is_string($fields[$name]) ? $fields[$name] : null;
        };
        return new self(
            $fields['state'],
            $text('product'),
            $text('expires_at'),
            $text('checked_at'),
            !empty($fields['stale']),
            (string) $text('detail')
        );
    }
}
