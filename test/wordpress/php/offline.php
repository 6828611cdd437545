<?php
/**
 * Plugin Name: Offline test site
 * Description: The test's WordPress reaches no server but the loopback: WordPress's calls to its
 * own servers are answered here (an update check with nothing to update), every other one fails,
 * and each is written down. The licensing service's port is allowed for downloads.
 */

add_filter('pre_http_request', static function ($answer, $args, $url) {
    $host = (string) parse_url($url, PHP_URL_HOST);
    if ($host === '127.0.0.1') {
        return $answer;
    }
    file_put_contents(WP_CONTENT_DIR . '/outside-requests.log', $url . "\n", FILE_APPEND);
    $path = (string) parse_url($url, PHP_URL_PATH);
    $bodies = [
        '/plugins/update-check/' => ['plugins' => [], 'translations' => [], 'no_update' => []],
        '/themes/update-check/' => ['themes' => [], 'translations' => [], 'no_update' => []],
        '/core/version-check/' => ['offers' => [], 'translations' => []],
    ];
    foreach ($bodies as $start => $body) {
        if ($host === 'api.wordpress.org' && strpos($path, $start) === 0) {
            return [
                'headers' => [],
                'body' => json_encode($body),
                'response' => ['code' => 200, 'message' => 'OK'],
                'cookies' => [],
                'filename' => null,
            ];
        }
    }
    return new WP_Error('http_request_failed', 'The test site reaches no server but the loopback.');
}, 10, 3);

add_filter('http_allowed_safe_ports', static function ($ports) {
    $ports[] = (int) LICENSING_TEST_SERVICE_PORT;
    return $ports;
});

// No mail leaves the site (the installer mails the administrator).
add_filter('pre_wp_mail', '__return_true');
