<?php

namespace Licensing\WordPress;

/**
 * The license screen's HTML: the key form when no key is kept, else the license's status,
 * expiry and free activations with Deactivate and Check now. Every value is escaped where it is
 * printed.
 */
final class SettingsView
{
    /** @var string */
    private $title;
    /** @var string */
    private $url;
    /** @var string */
    private $prefix;
    /** @var callable(string): string */
    private $nonceAction;

    /** @param callable(string): string $nonceAction */
    public function __construct(string $title, string $url, string $prefix, callable $nonceAction)
    {
        $this->title = $title;
        $this->url = $url;
        $this->prefix = $prefix;
        $this->nonceAction = $nonceAction;
    }

    public function render(LicenseState $state, ?Notice $notice): void
    {
        echo '<div class="wrap">';
        echo '<h1>' . esc_html($this->title) . '</h1>';
        if ($notice !== null) {
            self::notice($notice->type, $notice->message);
        }
        if ($state->hasKey() && $state->problem() !== '') {
            self::notice(Notice::WARNING, $state->problem());
        }
        if ($state->hasKey() && !$state->isValid()) {
            self::notice(Notice::WARNING, self::whyNotValid($state));
        }
        if ($state->hasKey()) {
            $this->status($state);
            echo '<p>';
            if (!$state->isActivatedHere() && $state->status() === 'active') {
                // A site that moved to another address: the kept key, activated for this one.
                $this->button('activate', __('Activate on this site', 'licensing-client'), 'primary', $state->key());
                echo ' ';
            }
            $this->button('deactivate', __('Deactivate license', 'licensing-client'), 'secondary');
            echo ' ';
            $this->button('check', __('Check now', 'licensing-client'), 'secondary');
            echo '</p>';
        } else {
            $this->keyForm();
        }
        echo '</div>';
    }

    private static function notice(string $type, string $message): void
    {
        printf('<div class="notice notice-%s"><p>%s</p></div>', esc_attr($type), esc_html($message));
    }

    private function status(LicenseState $state): void
    {
        $rows = [
            __('License key', 'licensing-client') => self::masked($state->key()),
            __('Status', 'licensing-client') => self::statusText($state),
        ];
        if ($state->plan() !== '') {
            $rows[__('Plan', 'licensing-client')] = $state->plan();
        }
        $rows[__('Expires', 'licensing-client')] = $state->expiresAt() === null
            ? __('Never', 'licensing-client')
            : self::date($state->expiresAt(), false);
        $left = $state->activationsLeft();
        $rows[__('Activations left', 'licensing-client')] = $left === null
            ? __('Unlimited', 'licensing-client')
            /* translators: 1: activations left, 2: the plan's limit */
            : sprintf(__('%1$d of %2$d', 'licensing-client'), $left, $state->activationLimit());
        if ($state->checkedAt() > 0) {
            $rows[__('Last checked', 'licensing-client')] = self::date('@' . $state->checkedAt(), true);
        }
        echo '<table class="form-table licensing-status" role="presentation"><tbody>';
        foreach ($rows as $label => $value) {
            printf('<tr><th scope="row">%s</th><td>%s</td></tr>', esc_html($label), esc_html($value));
        }
        echo '</tbody></table>';
    }

    private function keyForm(): void
    {
        $id = $this->prefix . '-license-key';
        printf('<form method="post" action="%s">', esc_url($this->url));
        wp_nonce_field(($this->nonceAction)('activate'));
        echo '<input type="hidden" name="licensing_action" value="activate">';
        echo '<p>' . esc_html__('Enter the license key you received with your purchase to get updates.', 'licensing-client') . '</p>';
        echo '<table class="form-table" role="presentation"><tbody><tr><th scope="row">';
        printf('<label for="%s">%s</label>', esc_attr($id), esc_html__('License key', 'licensing-client'));
        printf(
            '</th><td><input type="text" class="regular-text code" id="%s" name="license_key" autocomplete="off" spellcheck="false" required></td></tr>',
            esc_attr($id)
        );
        echo '</tbody></table>';
        submit_button(__('Activate license', 'licensing-client'), 'primary', $this->prefix . '_activate');
        echo '</form>';
    }

    private function button(string $action, string $label, string $type, string $licenseKey = ''): void
    {
        printf('<form method="post" action="%s" style="display:inline">', esc_url($this->url));
        wp_nonce_field(($this->nonceAction)($action), '_wpnonce', true, true);
        printf('<input type="hidden" name="licensing_action" value="%s">', esc_attr($action));
        if ($licenseKey !== '') {
            printf('<input type="hidden" name="license_key" value="%s">', esc_attr($licenseKey));
        }
        submit_button($label, $type, $this->prefix . '_' . $action, false);
        echo '</form>';
    }

    private static function statusText(LicenseState $state): string
    {
        $labels = [
            'active' => __('Active', 'licensing-client'),
            'expired' => __('Expired', 'licensing-client'),
            'suspended' => __('Suspended', 'licensing-client'),
            'revoked' => __('Revoked', 'licensing-client'),
            'cancelled' => __('Cancelled', 'licensing-client'),
            'invalid' => __('Not a valid key', 'licensing-client'),
        ];
        $text = isset($labels[$state->status()]) ? $labels[$state->status()] : $state->status();
        if (!$state->isActivatedHere() && $state->status() !== 'invalid') {
            $text .= ' ' . __('(not activated on this site)', 'licensing-client');
        }
        return $text;
    }

    private static function whyNotValid(LicenseState $state): string
    {
        if ($state->status() === 'active' && !$state->isActivatedHere()) {
            return __('This license is not activated for this site\'s address, so it gets no updates here.', 'licensing-client');
        }
        return sprintf(
            /* translators: %s: the license's status, e.g. Revoked */
            __('This license is no longer usable (%s), so updates are not available. Renew it at the store, or deactivate it to enter another key.', 'licensing-client'),
            self::statusText($state)
        );
    }

    /** The first and last four characters; the key is a credential even on the site's own screen. */
    private static function masked(string $key): string
    {
        $length = strlen($key);
        return $length <= 8 ? str_repeat('•', $length) : substr($key, 0, 4) . str_repeat('•', 8) . substr($key, -4);
    }

    /** A time the server sent (ISO 8601) or a Unix time (`@...`), in the site's formats. */
    private static function date(string $when, bool $withTime): string
    {
        $time = strtotime($when);
        if ($time === false) {
            return $when;
        }
        $format = get_option('date_format') . ($withTime ? ' ' . get_option('time_format') : '');
        return function_exists('wp_date') ? (string) wp_date($format, $time) : date_i18n($format, $time);
    }
}
