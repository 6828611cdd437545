<?php

namespace Licensing\WordPress;

/**
 * Puts the service's update into WordPress's own plugin updates: the `update_plugins` site
 * transient (as wp-includes/update.php saves it), so the Plugins and Updates screens offer it
 * and `Plugin_Upgrader` installs its package, and the "View details" modal (`plugins_api`, as
 * wp-admin/includes/plugin-install.php asks it). With no package (no valid key), WordPress shows
 * the update without an install link, and the plugin's row says how to get one.
 */
final class PluginUpdater
{
    /** @var string the plugin's main file */
    private $file;
    /** @var string `folder/file.php`, WordPress's name of the plugin */
    private $basename;
    /** @var string the plugin's folder: the product's WordPress slug */
    private $slug;
    /** @var string */
    private $name;
    /** @var callable(): (array<string, mixed>|null) the feed's answer for this site */
    private $feed;
    /** @var string */
    private $settingsUrl;

    /** @param callable(): (array<string, mixed>|null) $feed */
    public function __construct(string $file, string $basename, string $slug, string $name, callable $feed, string $settingsUrl)
    {
        $this->file = $file;
        $this->basename = $basename;
        $this->slug = $slug;
        $this->name = $name;
        $this->feed = $feed;
        $this->settingsUrl = $settingsUrl;
    }

    public function register(): void
    {
        add_filter('pre_set_site_transient_update_plugins', [$this, 'addUpdate']);
        add_filter('plugins_api', [$this, 'details'], 20, 3);
        add_action('in_plugin_update_message-' . $this->basename, [$this, 'noPackageMessage'], 10, 2);
    }

    /**
     * `pre_set_site_transient_update_plugins`: the plugin in `response` when the feed offers a
     * newer version than the one installed, else in `no_update` (which shows the auto-update
     * toggle and keeps wordpress.org's plugin of the same folder name out).
     *
     * @param mixed $transient
     * @return mixed
     */
    public function addUpdate($transient)
    {
        if (!is_object($transient)) {
            return $transient;
        }
        $feed = ($this->feed)();
        if ($feed === null) {
            return $transient;
        }
        $installed = isset($transient->checked[$this->basename])
            ? (string) $transient->checked[$this->basename]
            : $this->installedVersion();
        $item = (object) [
            'id' => $this->basename,
            'slug' => $this->slug,
            'plugin' => $this->basename,
            'new_version' => (string) $feed['version'],
            'url' => '',
            'package' => isset($feed['download_url']) && is_string($feed['download_url']) ? $feed['download_url'] : '',
            'icons' => [],
            'banners' => [],
            'banners_rtl' => [],
            'tested' => self::field($feed, 'tested'),
            'requires' => self::field($feed, 'requires'),
            'requires_php' => self::field($feed, 'requires_php'),
        ];
        $response = isset($transient->response) && is_array($transient->response) ? $transient->response : [];
        $current = isset($transient->no_update) && is_array($transient->no_update) ? $transient->no_update : [];
        unset($response[$this->basename], $current[$this->basename]);
        if (version_compare($item->new_version, $installed, '>')) {
            $response[$this->basename] = $item;
        } else {
            $current[$this->basename] = $item;
        }
        $transient->response = $response;
        $transient->no_update = $current;
        return $transient;
    }

    /**
     * `plugins_api` for `plugin_information` of this plugin's slug: what the "View details"
     * modal shows. WordPress filters the sections through wp_kses and prints the name as it is,
     * so the name is escaped here.
     *
     * @param mixed $result
     * @param mixed $args
     * @return mixed
     */
    public function details($result, string $action = '', $args = null)
    {
        if ($action !== 'plugin_information' || !is_object($args) || !isset($args->slug) || $args->slug !== $this->slug) {
            return $result;
        }
        $feed = ($this->feed)();
        if ($feed === null) {
            return $result;
        }
        $headers = get_file_data($this->file, ['Author' => 'Author', 'AuthorURI' => 'Author URI', 'PluginURI' => 'Plugin URI']);
        $sections = isset($feed['sections']) && is_array($feed['sections']) ? $feed['sections'] : [];
        $author = esc_html($headers['Author']);
        if ($author !== '' && $headers['AuthorURI'] !== '') {
            $author = '<a href="' . esc_url($headers['AuthorURI']) . '">' . $author . '</a>';
        }
        return (object) [
            'name' => esc_html(isset($feed['name']) && is_string($feed['name']) ? $feed['name'] : $this->name),
            'slug' => $this->slug,
            'version' => (string) $feed['version'],
            'author' => $author,
            'homepage' => $headers['PluginURI'],
            'requires' => self::field($feed, 'requires'),
            'tested' => self::field($feed, 'tested'),
            'requires_php' => self::field($feed, 'requires_php'),
            'last_updated' => self::field($feed, 'last_updated'),
            'sections' => array_map('strval', array_filter($sections, 'is_string')),
            'download_link' => isset($feed['download_url']) && is_string($feed['download_url']) ? $feed['download_url'] : '',
            'banners' => [],
            'icons' => [],
            // Not a wordpress.org plugin: no link to a page of it there.
            'external' => true,
        ];
    }

    /**
     * After WordPress's "automatic update is unavailable for this plugin" on the Plugins screen:
     * why, and where to enter the key.
     *
     * @param mixed $pluginData
     * @param mixed $response
     */
    public function noPackageMessage($pluginData, $response): void
    {
        if (!is_object($response) || !empty($response->package) || !current_user_can('manage_options')) {
            return;
        }
        printf(
            ' <a href="%s">%s</a>',
            esc_url($this->settingsUrl),
            esc_html__('Activate your license key to update.', 'licensing-client')
        );
    }

    private function installedVersion(): string
    {
        $headers = get_file_data($this->file, ['Version' => 'Version']);
        return (string) $headers['Version'];
    }

    /** @param array<string, mixed> $feed */
    private static function field(array $feed, string $name): string
    {
        return isset($feed[$name]) && is_scalar($feed[$name]) ? (string) $feed[$name] : '';
    }
}
