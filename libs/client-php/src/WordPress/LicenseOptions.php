<?php

namespace Licensing\WordPress;

use Licensing\Http\Transport;

/**
 * What a plugin or theme gives `PluginLicense` or `ThemeLicense`, checked when it is made, so a
 * wrong option is an `\InvalidArgumentException` on the seller's machine rather than a broken
 * settings screen on a customer's site.
 */
final class LicenseOptions
{
    /** Options passed on to `LicensingClient` as they are. */
    private const CLIENT_OPTIONS = ['timeout', 'offline_grace', 'clock_tolerance', 'headers', 'transport', 'clock'];

    private const NAMES = [
        'store_url', 'product_id', 'keys', 'name', 'menu_parent', 'menu_title', 'page_slug',
        'channel', 'deactivate_on_deactivation', 'update_cache_seconds',
        'timeout', 'offline_grace', 'clock_tolerance', 'headers', 'transport', 'clock',
    ];

    /** @var string */
    public $storeUrl;
    /** @var int */
    public $productId;
    /** @var array<string, mixed>|string|null the server's JWK Set */
    public $keys;
    /** @var string|null the product's name on screen; null: the plugin's or theme's own */
    public $name;
    /** @var string the admin menu the settings screen goes under */
    public $menuParent;
    /** @var string|null */
    public $menuTitle;
    /** @var string|null the screen's `page` slug; null: `{slug}-license` */
    public $pageSlug;
    /** @var string the least stable release channel offered */
    public $channel;
    /** @var bool whether deactivating the plugin (switching the theme away) frees the site's slot */
    public $deactivateOnDeactivation;
    /** @var int how long an answer of the update feed is kept */
    public $updateCacheSeconds;
    /** @var array<string, mixed> */
    public $client;

    /**
     * @param array<string, mixed> $options
     * @throws \InvalidArgumentException naming the first option that is wrong
     */
    public function __construct(array $options)
    {
        foreach (array_keys($options) as $name) {
            if (!in_array($name, self::NAMES, true)) {
                throw new \InvalidArgumentException(sprintf('Unknown option "%s"; the options are: %s.', $name, implode(', ', self::NAMES)));
            }
        }
        if (!isset($options['store_url']) || !is_string($options['store_url']) || trim($options['store_url']) === '') {
            throw new \InvalidArgumentException('store_url must be the store\'s address, e.g. https://licensing.example.com.');
        }
        $this->storeUrl = trim($options['store_url']);
        $id = isset($options['product_id']) ? $options['product_id'] : null;
        if (is_string($id) && ctype_digit($id)) {
            $id = (int) $id;
        }
        if (!is_int($id) || $id < 1) {
            throw new \InvalidArgumentException('product_id must be the product\'s id, a positive integer.');
        }
        $this->productId = $id;
        $this->keys = isset($options['keys']) ? $options['keys'] : null;
        if ($this->keys !== null && !is_string($this->keys) && !is_array($this->keys)) {
            throw new \InvalidArgumentException('keys must be the server\'s JWK Set, as JSON or an array.');
        }
        $this->name = self::text($options, 'name');
        $this->menuParent = self::text($options, 'menu_parent') ?? 'options-general.php';
        $this->menuTitle = self::text($options, 'menu_title');
        $this->pageSlug = self::text($options, 'page_slug');
        if ($this->pageSlug !== null && preg_match('/^[a-z0-9_-]+$/', $this->pageSlug) !== 1) {
            throw new \InvalidArgumentException('page_slug must be lowercase letters, digits, "-" or "_".');
        }
        $this->channel = self::text($options, 'channel') ?? 'stable';
        $this->deactivateOnDeactivation = !empty($options['deactivate_on_deactivation']);
        $seconds = isset($options['update_cache_seconds']) ? $options['update_cache_seconds'] : 3600;
        if (!is_int($seconds) || $seconds < 0) {
            throw new \InvalidArgumentException('update_cache_seconds must be a whole number of seconds, 0 or more.');
        }
        $this->updateCacheSeconds = $seconds;
        if (isset($options['transport']) && !$options['transport'] instanceof Transport) {
            throw new \InvalidArgumentException('transport must be a ' . Transport::class . '.');
        }
        $this->client = [];
        foreach (self::CLIENT_OPTIONS as $name) {
            if (array_key_exists($name, $options)) {
                $this->client[$name] = $options[$name];
            }
        }
    }

    /** @param array<string, mixed> $options */
    private static function text(array $options, string $name): ?string
    {
        if (!isset($options[$name])) {
            return null;
        }
        if (!is_string($options[$name]) || trim($options[$name]) === '') {
            throw new \InvalidArgumentException(sprintf('%s must be a non-empty string.', $name));
        }
        return trim($options[$name]);
    }
}
