<?php

namespace Licensing\WordPress;

/**
 * A plugin's license, added in its main file:
 *
 *     require __DIR__ . '/licensing-client/loader.php';
 *     $license = new \Licensing\WordPress\PluginLicense(__FILE__, [
 *         'store_url' => 'https://licensing.example.com', 'product_id' => 42, 'keys' => $jwks,
 *     ]);
 *     $license->register();
 *
 * The plugin's folder must be the product's WordPress slug. Uninstalling the plugin frees the
 * site's activation: WordPress keeps only a static callable for that (register_uninstall_hook),
 * so `uninstall()` finds the license of the plugin being uninstalled by the hook's name, after
 * WordPress has loaded the plugin's main file (which made and registered it). A plugin with its
 * own uninstall.php takes WordPress's other path: call `PluginLicense::forget()` there.
 */
class PluginLicense extends SoftwareLicense
{
    /** @var array<string, PluginLicense> registered licenses by plugin basename */
    private static $registered = [];

    /** @var string */
    private $file;
    /** @var string `folder/file.php` */
    private $basename;

    /**
     * @param string $pluginFile the plugin's main file (`__FILE__` there)
     * @param array<string, mixed> $options store_url, product_id, keys, and optionally name,
     *   menu_parent, menu_title, page_slug, channel, deactivate_on_deactivation,
     *   update_cache_seconds, and the client's timeout, offline_grace, clock_tolerance,
     *   headers, transport, clock
     * @throws \InvalidArgumentException for a wrong option
     */
    public function __construct(string $pluginFile, array $options)
    {
        $this->file = $pluginFile;
        $this->basename = plugin_basename($pluginFile);
        $folder = dirname($this->basename);
        $slug = $folder === '.' ? basename($this->basename, '.php') : $folder;
        $headers = get_file_data($pluginFile, ['Name' => 'Plugin Name']);
        parent::__construct($slug, $headers['Name'] !== '' ? $headers['Name'] : $slug, $options);
    }

    public function register(): void
    {
        parent::register();
        self::$registered[$this->basename] = $this;
        $updater = new PluginUpdater($this->file, $this->basename, $this->slug, $this->name, [$this, 'latestRelease'], $this->settingsUrl());
        $updater->register();
        register_activation_hook($this->file, [$this, 'pluginActivated']);
        register_deactivation_hook($this->file, [$this, 'pluginDeactivated']);
        // Also for a plugin that gained the library in an update: no activation hook ran then.
        add_action('admin_init', [$this, 'registerUninstall']);
        add_filter('plugin_action_links_' . $this->basename, [$this, 'actionLinks']);
    }

    public function pluginActivated(): void
    {
        $this->registerUninstall();
        $this->scheduleDailyCheck();
    }

    public function pluginDeactivated(): void
    {
        $this->stopDailyCheck();
        if ($this->options->deactivateOnDeactivation && $this->state()->hasKey()) {
            $this->deactivate();
        }
    }

    public function registerUninstall(): void
    {
        register_uninstall_hook($this->file, [self::class, 'uninstall']);
    }

    /**
     * The uninstall hook: `uninstall_{basename}` is the action running, and the plugin's main
     * file, loaded just before it, registered its license.
     */
    public static function uninstall(): void
    {
        $action = (string) current_action();
        $basename = strpos($action, 'uninstall_') === 0 ? substr($action, strlen('uninstall_')) : '';
        if (isset(self::$registered[$basename])) {
            self::$registered[$basename]->forgetSite();
        }
    }

    /** For a plugin's own uninstall.php: frees the activation and removes what is kept. */
    public function forget(): void
    {
        $this->forgetSite();
    }

    /**
     * @param mixed $links
     * @return mixed
     */
    public function actionLinks($links)
    {
        if (!is_array($links) || !current_user_can(SettingsPage::CAPABILITY)) {
            return $links;
        }
        $links[] = sprintf('<a href="%s">%s</a>', esc_url($this->settingsUrl()), esc_html__('License', 'licensing-client'));
        return $links;
    }

    protected function updatesChanged(): void
    {
        // The next check (any admin page) asks again, so a key just activated can update at once.
        delete_site_transient('update_plugins');
    }
}
