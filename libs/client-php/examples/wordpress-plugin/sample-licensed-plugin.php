<?php
/**
 * Plugin Name: Sample Licensed Plugin
 * Description: A plugin sold with the Licensing Service: its license screen is under Settings, and its updates come from the store.
 * Version: 1.0.0
 * Requires at least: 5.8
 * Requires PHP: 7.4
 * Author: Example Seller
 * Update URI: https://licensing.example.com/
 * License: GPL-2.0-or-later
 * Text Domain: sample-licensed-plugin
 */

if (!defined('ABSPATH')) {
    exit;
}

require __DIR__ . '/licensing-client/loader.php';

/** The plugin's license: made once, on the first call. */
function sample_licensed_plugin_license(): \Licensing\WordPress\PluginLicense
{
    static $license = null;
    if ($license === null) {
        $license = new \Licensing\WordPress\PluginLicense(__FILE__, [
            'store_url' => 'https://licensing.example.com',
            'product_id' => 42,
            // The store's signing keys, as GET {api_base}/keys answers: every answer is verified.
            'keys' => file_get_contents(__DIR__ . '/licensing-keys.json'),
        ]);
    }
    return $license;
}

sample_licensed_plugin_license()->register();

// What the license unlocks: [sample_licensed_greeting] greets only on a licensed site.
add_shortcode('sample_licensed_greeting', static function (): string {
    if (!sample_licensed_plugin_license()->isValid()) {
        return '';
    }
    return '<p class="sample-licensed-greeting">' . esc_html__('Thank you for your purchase!', 'sample-licensed-plugin') . '</p>';
});
