<?php

namespace Licensing\WordPress;

/**
 * A theme's license, added in its functions.php as a plugin's is (`__FILE__` there names the
 * theme's folder, which must be the product's WordPress slug). WordPress runs no code of a theme
 * when it is deleted, so the site's activation is freed when the site switches to another
 * theme if `deactivate_on_deactivation` is set; else the customer frees it from the portal.
 */
class ThemeLicense extends SoftwareLicense
{
    /** @var string the theme's folder */
    private $stylesheet;

    /**
     * @param string $themeFile a file at the theme's root (`__FILE__` in functions.php), or the
     *   theme's folder name
     * @param array<string, mixed> $options as PluginLicense takes them; the screen is under
     *   Appearance unless `menu_parent` says otherwise
     * @throws \InvalidArgumentException for a wrong option
     */
    public function __construct(string $themeFile, array $options)
    {
        $this->stylesheet = is_file($themeFile) ? basename(dirname($themeFile)) : $themeFile;
        // A theme's screens are under Appearance.
        $options += ['menu_parent' => 'themes.php'];
        $name = (string) wp_get_theme($this->stylesheet)->get('Name');
        parent::__construct($this->stylesheet, $name !== '' ? $name : $this->stylesheet, $options);
    }

    public function register(): void
    {
        parent::register();
        (new ThemeUpdater($this->stylesheet, [$this, 'latestRelease']))->register();
        add_action('switch_theme', [$this, 'switchedAway'], 10, 3);
    }

    /**
     * @param mixed $newName
     * @param mixed $newTheme
     * @param mixed $oldTheme the theme switched away from
     */
    public function switchedAway($newName, $newTheme = null, $oldTheme = null): void
    {
        if (!is_object($oldTheme) || !method_exists($oldTheme, 'get_stylesheet') || $oldTheme->get_stylesheet() !== $this->stylesheet) {
            return;
        }
        $this->stopDailyCheck();
        if ($this->options->deactivateOnDeactivation && $this->state()->hasKey()) {
            $this->deactivate();
        }
    }

    protected function updatesChanged(): void
    {
        delete_site_transient('update_themes');
    }
}
