<?php
/**
 * What the WordPress test does inside its WordPress, one command a process, as WordPress's own
 * requests and wp-cron would: `php site.php <site dir> <command> [arguments]`. Each prints one
 * line of JSON.
 */

[$script, $site, $command] = array_pad($argv, 3, '');
$arguments = array_slice($argv, 3);

if ($command === 'install') {
    define('WP_INSTALLING', true);
}
require $site . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
// Set after WordPress loads: its loop over the active plugins sets a global $plugin of its own.
$plugin = 'sample-licensed-plugin/sample-licensed-plugin.php';

/** What WordPress's update transient says of the plugin. */
function offered(string $plugin): array
{
    $transient = get_site_transient('update_plugins');
    $pick = static function ($list) use ($plugin) {
        return is_array($list) && isset($list[$plugin]) ? (array) $list[$plugin] : null;
    };
    return [
        'response' => is_object($transient) ? $pick($transient->response ?? null) : null,
        'no_update' => is_object($transient) ? $pick($transient->no_update ?? null) : null,
    ];
}

switch ($command) {
    case 'install':
        require_once ABSPATH . 'wp-admin/includes/upgrade.php';
        [$user, $password] = $arguments;
        $installed = wp_install('Licensing test site', $user, 'admin@example.com', false, '', $password);
        // No avatars (they would be fetched from gravatar.com) on the screens the browser opens.
        update_option('show_avatars', '0');
        $result = ['user_id' => $installed['user_id']];
        break;
    case 'add-user':
        [$login, $password, $role] = $arguments;
        $id = wp_insert_user(['user_login' => $login, 'user_pass' => $password, 'user_email' => "$login@example.com", 'role' => $role]);
        $result = ['error' => is_wp_error($id) ? $id->get_error_message() : null];
        break;
    case 'activate-plugin':
        // `silent`: as the update screen activates again a plugin its upgrade deactivated.
        $activated = activate_plugin($plugin, '', false, ($arguments[0] ?? '') === 'silent');
        $result = ['error' => is_wp_error($activated) ? $activated->get_error_message() : null];
        break;
    case 'update-check':
        // WordPress's own check, as wp-cron runs it twice a day.
        wp_update_plugins();
        $result = offered($plugin);
        break;
    case 'daily-check':
        // The plugin's own wp-cron event, run as wp-cron.php runs a due one.
        $hook = sample_licensed_plugin_license()->dailyCheckHook();
        $scheduled = wp_next_scheduled($hook);
        if ($scheduled !== false) {
            do_action($hook);
        }
        $result = ['scheduled' => $scheduled !== false, 'status' => sample_licensed_plugin_license()->state()->status()];
        break;
    case 'upgrade':
        // What wp-admin/update.php has loaded when it upgrades (wp-admin/admin.php's includes).
        require_once ABSPATH . 'wp-admin/includes/admin.php';
        require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';
        $skin = new Automatic_Upgrader_Skin();
        $upgraded = (new Plugin_Upgrader($skin))->upgrade($plugin);
        $after = get_plugin_data(WP_PLUGIN_DIR . '/' . $plugin, false, false);
        $result = [
            'result' => is_wp_error($upgraded) ? $upgraded->get_error_code() : $upgraded,
            'messages' => $skin->get_upgrade_messages(),
            'version' => $after['Version'],
            'active' => is_plugin_active($plugin),
        ];
        break;
    case 'license-activate':
        $notice = sample_licensed_plugin_license()->activate($arguments[0]);
        $result = ['type' => $notice->type, 'message' => $notice->message];
        break;
    case 'license-state':
        $state = sample_licensed_plugin_license()->state();
        $result = ['key' => $state->key(), 'status' => $state->status(), 'valid' => $state->isValid()];
        break;
    case 'deactivate-plugin':
        deactivate_plugins($plugin);
        $result = ['active' => is_plugin_active($plugin)];
        break;
    case 'uninstall-plugin':
        // As the Plugins screen's Delete does: the plugin is inactive, WordPress loads its main
        // file and runs the uninstall hook it registered.
        $registered = array_key_exists($plugin, (array) get_option('uninstall_plugins'));
        uninstall_plugin($plugin);
        global $wpdb;
        $result = [
            'registered' => $registered,
            'options_left' => $wpdb->get_col("SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE 'licensing\\_sample%' OR option_name LIKE '\\_transient%licensing\\_sample%'"),
            'cron_left' => wp_next_scheduled('licensing_sample_licensed_plugin_daily_check') !== false,
        ];
        break;
    default:
        fwrite(STDERR, "unknown command: $command\n");
        exit(2);
}
echo json_encode($result), "\n";
