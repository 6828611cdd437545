<?php

namespace Licensing\WordPress;

/**
 * Puts the service's update into WordPress's own theme updates: the `update_themes` site
 * transient, whose entries are arrays by stylesheet (as wp_update_themes() saves them), so the
 * Themes and Updates screens offer it and `Theme_Upgrader` installs its package.
 */
final class ThemeUpdater
{
    /** @var string the theme's folder */
    private $stylesheet;
    /** @var callable(): (array<string, mixed>|null) */
    private $feed;

    /** @param callable(): (array<string, mixed>|null) $feed */
    public function __construct(string $stylesheet, callable $feed)
    {
        $this->stylesheet = $stylesheet;
        $this->feed = $feed;
    }

    public function register(): void
    {
        add_filter('pre_set_site_transient_update_themes', [$this, 'addUpdate']);
    }

    /**
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
        $installed = isset($transient->checked[$this->stylesheet])
            ? (string) $transient->checked[$this->stylesheet]
            : (string) wp_get_theme($this->stylesheet)->get('Version');
        $item = [
            'theme' => $this->stylesheet,
            'new_version' => (string) $feed['version'],
            'url' => '',
            'package' => isset($feed['download_url']) && is_string($feed['download_url']) ? $feed['download_url'] : '',
            'requires' => isset($feed['requires']) ? (string) $feed['requires'] : '',
            'requires_php' => isset($feed['requires_php']) ? (string) $feed['requires_php'] : '',
        ];
        $response = isset($transient->response) && is_array($transient->response) ? $transient->response : [];
        $current = isset($transient->no_update) && is_array($transient->no_update) ? $transient->no_update : [];
        unset($response[$this->stylesheet], $current[$this->stylesheet]);
        if (version_compare($item['new_version'], $installed, '>')) {
            $response[$this->stylesheet] = $item;
        } else {
            $current[$this->stylesheet] = $item;
        }
        $transient->response = $response;
        $transient->no_update = $current;
        return $transient;
    }
}
