<?php

namespace Licensing\Joomla;

/**
 * The administrator's message for a license check's state, in plain words, and the type Joomla's
 * `enqueueMessage()` shows it with. The text is plain: escape it before Joomla renders it as HTML.
 *
 * Each template may be replaced (a Joomla language string, say) and may use {product}, {date}
 * (the expiry date), {checked} (the date of the answer), {detail} and, in `offline`, {message}.
 */
final class StatusMessage
{
    public const DEFAULT_TEMPLATES = [
        'active' => 'Your {product} license is active until {date}.',
        'active_forever' => 'Your {product} license is active and does not expire.',
        'expired' => 'Your {product} license expired on {date}. Renew it to receive updates again.',
        'expired_undated' => 'Your {product} license has expired. Renew it to receive updates again.',
        'suspended' => 'Your {product} license is suspended. Updates resume once it is active again.',
        'revoked' => 'Your {product} license has been revoked: this Download Key no longer gives updates.',
        'cancelled' => 'Your {product} license has been cancelled: this Download Key no longer gives updates.',
        'inactive' => 'Your {product} license is not active (the server says "{detail}").',
        'not_found' => 'The Download Key entered for {product} was not found. '
            . 'Check it under System > Update Sites.',
        'wrong_product' => 'The Download Key entered for {product} is the license of another product. '
            . 'Check it under System > Update Sites.',
        'no_key' => 'Enter the Download Key of your {product} license under System > Update Sites '
            . 'to receive updates.',
        'unreachable' => 'Your {product} license could not be checked ({detail}). It is checked again later.',
        'offline' => 'The license server could not be reached; at the last check, on {checked}: {message}',
    ];

    /** The types of Joomla's message queue: `message` is shown as a success. */
    private const TYPES = [
        LicenseStatus::ACTIVE => 'message',
        LicenseStatus::EXPIRED => 'warning',
        LicenseStatus::SUSPENDED => 'warning',
        LicenseStatus::CANCELLED => 'warning',
        LicenseStatus::INACTIVE => 'warning',
        LicenseStatus::REVOKED => 'error',
        LicenseStatus::NOT_FOUND => 'error',
        LicenseStatus::WRONG_PRODUCT => 'error',
        LicenseStatus::NO_KEY => 'notice',
        LicenseStatus::UNREACHABLE => 'notice',
    ];

    /** @var array<string, string> */
    private $templates;
    /** @var string */
    private $product;
    /** @var callable(int): string */
    private $formatDate;

    /**
     * @param string $product the extension's name; empty: the product the server names
     * @param array<string, string> $templates replacements of some of DEFAULT_TEMPLATES
     * @param callable(int): string|null $formatDate a Unix time as the site shows dates
     */
    public function __construct(string $product = '', array $templates = [], ?callable $formatDate = null)
    {
        $unknown = array_diff(array_keys($templates), array_keys(self::DEFAULT_TEMPLATES));
        if ($unknown !== []) {
            throw new \InvalidArgumentException('Unknown message template: ' . implode(', ', $unknown) . '.');
        }
        $this->templates = array_merge(self::DEFAULT_TEMPLATES, $templates);
        $this->product = $product;
        $this->formatDate = $formatDate ?: static function (int $time): string {
            return gmdate('j F Y', $time);
        };
    }

    public function text(LicenseStatus $status): string
    {
        $message = $this->fill($this->templateOf($status), $status, '');
        return $status->stale ? $this->fill($this->templates['offline'], $status, $message) : $message;
    }

    /** `message`, `notice`, `warning` or `error`; an answer from the offline grace is a notice. */
    public function type(LicenseStatus $status): string
    {
        if ($status->stale) {
            return 'notice';
        }
        return isset(self::TYPES[$status->state]) ? self::TYPES[$status->state] : 'warning';
    }

    private function templateOf(LicenseStatus $status): string
    {
        $state = isset(self::TYPES[$status->state]) ? $status->state : LicenseStatus::INACTIVE;
        if ($state === LicenseStatus::ACTIVE && $status->expiresAt === null) {
            return $this->templates['active_forever'];
        }
        if ($state === LicenseStatus::EXPIRED && $status->expiresAt === null) {
            return $this->templates['expired_undated'];
        }
        return $this->templates[$state];
    }

    private function fill(string $template, LicenseStatus $status, string $message): string
    {
        $product = $this->product !== '' ? $this->product : (string) $status->product;
        return strtr($template, [
            '{product}' => $product !== '' ? $product : 'extension',
            '{date}' => $this->date($status->expiresAt),
            '{checked}' => $this->date($status->checkedAt),
            '{detail}' => $status->detail,
            '{message}' => $message,
        ]);
    }

    private function date(?string $iso): string
    {
        $time = $iso === null ? false : strtotime($iso);
        return $time === false ? '' : (string) ($this->formatDate)($time);
    }
}
