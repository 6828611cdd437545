<?php

namespace Licensing\WordPress;

use Licensing\Result\Activation;
use Licensing\Result\Validation;

/**
 * The key the site's administrator entered and what the server last said of it, kept in one
 * option of the site: what the settings screen shows, and what `isValid()` answers between the
 * daily checks without asking the server.
 */
final class LicenseState
{
    /** @var string the option it is kept in */
    private $option;
    /** @var array<string, mixed> */
    private $fields;

    /** @param array<string, mixed> $fields */
    private function __construct(string $option, array $fields)
    {
        $this->option = $option;
        $this->fields = $fields;
    }

    public static function load(string $option): self
    {
        $fields = get_option($option, []);
        return new self($option, is_array($fields) ? $fields : []);
    }

    /** The key entered and activated on this site; '' when none is. */
    public function key(): string
    {
        return $this->string('license_key');
    }

    /** The identifier the server stored for this site (deactivate with it). */
    public function identifier(): string
    {
        return $this->string('identifier');
    }

    public function hasKey(): bool
    {
        return $this->key() !== '';
    }

    /** active, expired, suspended, revoked, cancelled or invalid; '' when no key is kept. */
    public function status(): string
    {
        return $this->string('status');
    }

    /** True while the last answer said the license is usable and activated on this site. */
    public function isValid(): bool
    {
        return $this->hasKey() && !empty($this->fields['valid']) && !empty($this->fields['activated']);
    }

    public function isActivatedHere(): bool
    {
        return !empty($this->fields['activated']);
    }

    public function expiresAt(): ?string
    {
        $value = $this->string('expires_at');
        return $value === '' ? null : $value;
    }

    public function activationLimit(): int
    {
        return isset($this->fields['activation_limit']) ? (int) $this->fields['activation_limit'] : 0;
    }

    public function activationsUsed(): int
    {
        return isset($this->fields['activations_used']) ? (int) $this->fields['activations_used'] : 0;
    }

    /** Free slots; null when the plan's limit is unlimited. */
    public function activationsLeft(): ?int
    {
        $limit = $this->activationLimit();
        return $limit === 0 ? null : max(0, $limit - $this->activationsUsed());
    }

    public function plan(): string
    {
        return $this->string('plan');
    }

    /** When the server last answered (Unix time); 0 when it never did. */
    public function checkedAt(): int
    {
        return isset($this->fields['checked_at']) ? (int) $this->fields['checked_at'] : 0;
    }

    /** Why the last check could not reach the server, in plain words; '' when it could. */
    public function problem(): string
    {
        return $this->string('problem');
    }

    /** What the state says that the update feed depends on: a change means a fresh feed. */
    public function fingerprint(): string
    {
        return md5($this->key() . '|' . $this->status() . '|' . ($this->isValid() ? '1' : '0'));
    }

    /** The key activated on this site, as the server answered the activation. */
    public function activated(string $key, Activation $answer, int $now): self
    {
        return $this->saved([
            'license_key' => $key,
            'identifier' => $answer->identifier,
            'activated' => true,
            'valid' => $answer->status === 'active',
            'status' => $answer->status,
            'plan' => (string) $answer->plan,
            'expires_at' => $answer->expires_at,
            'activation_limit' => $answer->activation_limit,
            'activations_used' => $answer->activations_used,
            'checked_at' => $now,
            'problem' => '',
        ]);
    }

    /** What a validation said; a stale one (the offline grace) is marked with `$problem`. */
    public function validated(Validation $answer, int $now, string $problem = ''): self
    {
        return $this->saved(array_merge($this->fields, [
            'activated' => $answer->identifier_activated,
            'valid' => $answer->valid,
            'status' => $answer->status,
            'plan' => (string) $answer->plan,
            'expires_at' => $answer->expires_at,
            'activation_limit' => $answer->activation_limit,
            'activations_used' => $answer->activations_used,
            'checked_at' => $answer->isStale() ? $this->checkedAt() : $now,
            'problem' => $problem,
        ]));
    }

    /** The server could not be asked: the last answer stands, with why. */
    public function unreachable(string $problem): self
    {
        return $this->saved(array_merge($this->fields, ['problem' => $problem]));
    }

    /** No key any more: the option is removed. */
    public function cleared(): self
    {
        delete_option($this->option);
        return new self($this->option, []);
    }

    /** @param array<string, mixed> $fields */
    private function saved(array $fields): self
    {
        // Autoloaded: `isValid()` may gate features on every page.
        update_option($this->option, $fields, true);
        return new self($this->option, $fields);
    }

    private function string(string $name): string
    {
        return isset($this->fields[$name]) && is_scalar($this->fields[$name]) ? (string) $this->fields[$name] : '';
    }
}
