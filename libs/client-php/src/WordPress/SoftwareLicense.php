<?php

namespace Licensing\WordPress;

use Licensing\Http\Transport;
use Licensing\Http\WordPressTransport;
use Licensing\LicensingClient;

/**
 * What a plugin's and a theme's license share: the client (its offline grace kept in an
 * option), the site's license state, the license screen, the daily check (wp-cron) and the
 * update feed. Nothing is asked of the server until a screen, a check or an update needs it.
 */
abstract class SoftwareLicense
{
    /** @var LicenseOptions */
    protected $options;
    /** @var string the product's folder name: its WordPress slug */
    protected $slug;
    /** @var string */
    protected $name;
    /** @var string the start of every option, transient and hook name of this license */
    protected $prefix;
    /** @var LicensingClient|null */
    private $client;
    /** @var LicenseManager */
    private $manager;
    /** @var UpdateFeed|null */
    private $feed;
    /** @var SettingsPage */
    private $page;

    /** @param array<string, mixed> $options */
    protected function __construct(string $slug, string $name, array $options)
    {
        $this->options = new LicenseOptions($options);
        $this->slug = $slug;
        $this->name = $this->options->name !== null ? $this->options->name : $name;
        $this->prefix = 'licensing_' . substr(preg_replace('/[^a-z0-9_]/', '_', strtolower($slug)), 0, 60);
        $this->manager = new LicenseManager(
            [$this, 'client'],
            $this->prefix . '_license',
            [$this, 'identifier'],
            function (LicenseState $before, LicenseState $after): void {
                if ($before->fingerprint() !== $after->fingerprint()) {
                    $this->feed()->forget();
                    $this->updatesChanged();
                }
            }
        );
        /* translators: %s: the plugin's or theme's name */
        $title = sprintf(__('%s License', 'licensing-client'), $this->name);
        $this->page = new SettingsPage(
            $this->manager,
            $this->prefix,
            $this->options->menuParent,
            $this->options->pageSlug !== null ? $this->options->pageSlug : $slug . '-license',
            $title,
            $this->options->menuTitle !== null ? $this->options->menuTitle : $title
        );
    }

    /** Adds the hooks: the license screen, the daily check, the updates. */
    public function register(): void
    {
        $this->page->register();
        add_action($this->dailyCheckHook(), [$this, 'dailyCheck']);
        add_action('init', [$this, 'scheduleDailyCheck']);
    }

    /** True while the last answer of the server said the license is usable on this site. */
    public function isValid(): bool
    {
        return $this->manager->state()->isValid();
    }

    /** The key kept and what the server last said of it. */
    public function state(): LicenseState
    {
        return $this->manager->state();
    }

    /** Activates `$licenseKey` on this site and keeps it; the notice says how it went. */
    public function activate(string $licenseKey): Notice
    {
        return $this->manager->activate($licenseKey);
    }

    /** Frees this site's activation and forgets the key. */
    public function deactivate(): Notice
    {
        return $this->manager->deactivate();
    }

    /** Asks the server now how the license stands. */
    public function check(): Notice
    {
        return $this->manager->refresh();
    }

    /** The wp-cron event's callback. */
    public function dailyCheck(): void
    {
        $this->manager->refresh();
    }

    public function scheduleDailyCheck(): void
    {
        if (wp_next_scheduled($this->dailyCheckHook()) === false) {
            wp_schedule_event(time() + DAY_IN_SECONDS, 'daily', $this->dailyCheckHook());
        }
    }

    /** The wp-cron event that keeps the shown state fresh. */
    public function dailyCheckHook(): string
    {
        return $this->prefix . '_daily_check';
    }

    /** The license screen's address. */
    public function settingsUrl(): string
    {
        return $this->page->url();
    }

    /** This site as its activation names it: its home URL (the server keeps the host). */
    public function identifier(): string
    {
        return (string) apply_filters('licensing_site_identifier', home_url(), $this->slug);
    }

    /** The client, made when first needed. */
    public function client(): LicensingClient
    {
        if ($this->client === null) {
            $options = $this->options->client;
            $options['cache'] = new OptionCache($this->prefix . '_license_cache');
            if ($this->options->keys !== null) {
                $options['keys'] = $this->options->keys;
            }
            $this->client = new LicensingClient($this->options->storeUrl, $this->options->productId, $options);
        }
        return $this->client;
    }

    /**
     * The update feed's answer for this site's key (none kept: the feed without one, which
     * offers the version without its package).
     *
     * @return array<string, mixed>|null
     */
    public function latestRelease(): ?array
    {
        $state = $this->manager->state();
        return $this->feed()->latest($state->key(), $this->identifier(), $this->options->channel);
    }

    /** Frees the slot if the server answers and removes everything kept: for uninstalling. */
    protected function forgetSite(): void
    {
        $this->manager->forget();
        (new OptionCache($this->prefix . '_license_cache'))->clear();
        $this->feed()->forget();
        wp_clear_scheduled_hook($this->dailyCheckHook());
    }

    protected function stopDailyCheck(): void
    {
        wp_clear_scheduled_hook($this->dailyCheckHook());
    }

    /** The license changed in a way the update offer depends on: WordPress's copy is stale. */
    abstract protected function updatesChanged(): void;

    private function feed(): UpdateFeed
    {
        if ($this->feed === null) {
            $client = $this->options->client;
            $url = $this->client()->apiBase() . '/updates/' . $this->options->productId . '/wordpress.json';
            $this->feed = new UpdateFeed(
                $url,
                static function () use ($client): Transport {
                    return isset($client['transport']) ? $client['transport'] : new WordPressTransport();
                },
                isset($client['timeout']) ? (float) $client['timeout'] : 15.0,
                $this->prefix . '_update',
                $this->options->updateCacheSeconds
            );
        }
        return $this->feed;
    }
}
