<?php

namespace Licensing\WordPress;

use Licensing\LicensingClient;
use Licensing\LicensingException;

/**
 * Activates, checks and deactivates the site's license through the client, and keeps what the
 * server answered in the site's `LicenseState`. Every failure comes back as a notice in the
 * server's own words; nothing here throws at a customer's admin screen.
 */
final class LicenseManager
{
    /** @var callable(): LicensingClient */
    private $client;
    /** @var string */
    private $stateOption;
    /** @var callable(): string */
    private $identifier;
    /** @var callable(LicenseState, LicenseState): void */
    private $changed;

    /**
     * @param callable(): LicensingClient $client made when first needed
     * @param callable(): string $identifier this site, as its activation names it
     * @param callable(LicenseState, LicenseState): void $changed told the state before and after
     */
    public function __construct(callable $client, string $stateOption, callable $identifier, callable $changed)
    {
        $this->client = $client;
        $this->stateOption = $stateOption;
        $this->identifier = $identifier;
        $this->changed = $changed;
    }

    public function state(): LicenseState
    {
        return LicenseState::load($this->stateOption);
    }

    public function activate(string $licenseKey): Notice
    {
        $licenseKey = trim($licenseKey);
        if ($licenseKey === '') {
            return Notice::error(__('Enter the license key you received with your purchase.', 'licensing-client'));
        }
        $before = $this->state();
        try {
            $answer = $this->client()->activate($licenseKey, ($this->identifier)());
        } catch (LicensingException $e) {
            return Notice::error(self::words($e));
        }
        $after = $before->activated($licenseKey, $answer, time());
        if ($before->hasKey() && $before->key() !== $licenseKey && $before->isActivatedHere()) {
            // Another key took this site's place: free the slot the one before held here.
            try {
                $this->client()->deactivate($before->key(), $before->identifier());
            } catch (LicensingException $e) {
                // The customer can free it from the store's portal.
            }
        }
        ($this->changed)($before, $after);
        return Notice::success(__('The license is activated on this site.', 'licensing-client'));
    }

    /** Frees this site's slot on the license and forgets the key. */
    public function deactivate(): Notice
    {
        $before = $this->state();
        if (!$before->hasKey()) {
            return Notice::error(__('No license key is kept on this site.', 'licensing-client'));
        }
        $identifier = $before->identifier() !== '' ? $before->identifier() : ($this->identifier)();
        $notice = Notice::success(__('The license is deactivated on this site, and its key removed.', 'licensing-client'));
        try {
            $this->client()->deactivate($before->key(), $identifier);
        } catch (LicensingException $e) {
            if ($e->isTransient()) {
                // The slot may still be taken: keep the key so that deactivating can be tried again.
                return Notice::error(self::words($e));
            }
            $notice = new Notice(Notice::WARNING, sprintf(
                /* translators: %s: the license server's message */
                __('The key is removed from this site. The license server said: %s', 'licensing-client'),
                self::words($e)
            ));
        }
        ($this->changed)($before, $before->cleared());
        return $notice;
    }

    /** Asks the server how the license stands (the daily check, and "Check now"). */
    public function refresh(): Notice
    {
        $before = $this->state();
        if (!$before->hasKey()) {
            return Notice::error(__('No license key is kept on this site.', 'licensing-client'));
        }
        try {
            $answer = $this->client()->validate($before->key(), ($this->identifier)());
        } catch (LicensingException $e) {
            $before->unreachable(self::words($e));
            return Notice::error(self::words($e));
        }
        $problem = '';
        if ($answer->isStale()) {
            $problem = __('The license server could not be reached; its last answer is shown.', 'licensing-client');
        }
        $after = $before->validated($answer, time(), $problem);
        ($this->changed)($before, $after);
        if ($problem !== '') {
            return new Notice(Notice::WARNING, $problem);
        }
        return Notice::success(__('The license was checked just now.', 'licensing-client'));
    }

    /** Frees the slot if the server can be reached, and forgets the key whatever it answers. */
    public function forget(): void
    {
        $state = $this->state();
        if ($state->hasKey()) {
            try {
                $identifier = $state->identifier() !== '' ? $state->identifier() : ($this->identifier)();
                $this->client()->deactivate($state->key(), $identifier);
            } catch (LicensingException $e) {
                // Uninstalling goes on: the customer can free the slot from the store's portal.
            }
        }
        $state->cleared();
    }

    private function client(): LicensingClient
    {
        return ($this->client)();
    }

    /** The server's message, shown as it is (plain words); the client's own when there was none. */
    private static function words(LicensingException $e): string
    {
        $message = trim($e->getMessage());
        return $message !== '' ? $message : __('The license server could not be reached. Try again in a few minutes.', 'licensing-client');
    }
}
