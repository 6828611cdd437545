<?php
/**
 * What the WordPress test of a theme's license does inside its WordPress, one command a
 * process: `php theme.php <site dir> <command> [arguments]`. Each prints one line of JSON.
 */

[$script, $site, $command] = array_pad($argv, 3, '');
$arguments = array_slice($argv, 3);

require $site . '/wp-load.php';
$theme = 'sample-licensed-theme';

switch ($command) {
    case 'switch':
        // As the Themes screen's Activate does (the theme switched from is the one loaded).
        switch_theme($arguments[0]);
        $result = ['stylesheet' => get_stylesheet()];
        break;
    case 'license-activate':
        $notice = sample_licensed_theme_license()->activate($arguments[0]);
        $result = ['type' => $notice->type, 'message' => $notice->message, 'menu' => sample_licensed_theme_license()->settingsUrl()];
        break;
    case 'update-check':
        wp_update_themes();
        $transient = get_site_transient('update_themes');
        $result = [
            'response' => $transient->response[$theme] ?? null,
            'no_update' => $transient->no_update[$theme] ?? null,
        ];
        break;
    case 'upgrade':
        require_once ABSPATH . 'wp-admin/includes/admin.php';
        require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';
        $skin = new Automatic_Upgrader_Skin();
        $upgraded = (new Theme_Upgrader($skin))->upgrade($theme);
        wp_clean_themes_cache();
        $result = [
            'result' => is_wp_error($upgraded) ? $upgraded->get_error_code() : $upgraded,
            'messages' => $skin->get_upgrade_messages(),
            'version' => (new WP_Theme($theme, get_theme_root($theme)))->get('Version'),
        ];
        break;
    default:
        fwrite(STDERR, "unknown command: $command\n");
        exit(2);
}
echo json_encode($result), "\n";
