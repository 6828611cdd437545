<?php

namespace Licensing\Http;

/**
 * HTTP through WordPress (`wp_remote_request`): the site's proxy settings, its certificate
 * bundle and the `http_request_args` filters apply. No redirect is followed, and the body is
 * kept as the server sent it, since its digest is checked.
 */
class WordPressTransport implements Transport
{
    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        if (!function_exists('wp_remote_request')) {
            throw ConnectionFailure::because('WordPress is not loaded');
        }
        $arguments = [];
        foreach ($headers as $name => $value) {
            // WordPress sends its own User-Agent unless given one as this argument.
            if (strtolower($name) === 'user-agent') {
                $arguments['user-agent'] = $value;
                unset($headers[$name]);
            }
        }
        $arguments += [
            'method' => $method,
            'headers' => $headers,
            'timeout' => $timeout,
            'redirection' => 0,
            'decompress' => false,
            'httpversion' => '1.1',
        ];
        if ($body !== null) {
            $arguments['body'] = $body;
        }
        $answer = wp_remote_request($url, $arguments);
        if (function_exists('is_wp_error') && is_wp_error($answer)) {
            $message = $answer->get_error_message();
            if (stripos($message, 'timed out') !== false) {
                throw ConnectionFailure::timedOut($timeout);
            }
            throw ConnectionFailure::because($message);
        }
        if (!is_array($answer)) {
            throw ConnectionFailure::because('WordPress gave no answer');
        }
        $status = (int) wp_remote_retrieve_response_code($answer);
        if ($status === 0) {
            throw ConnectionFailure::because('the answer had no status line');
        }
        return new Response($status, self::headers(wp_remote_retrieve_headers($answer)), (string) wp_remote_retrieve_body($answer));
    }

    /**
     * @param mixed $headers WordPress's case-insensitive dictionary, or an array
     * @return array<string, string|string[]>
     */
    private static function headers($headers): array
    {
        if (is_object($headers) && method_exists($headers, 'getAll')) {
            $headers = $headers->getAll();
        }
        $fields = [];
        foreach (is_array($headers) ? $headers : [] as $name => $value) {
            $fields[(string) $name] = is_array($value) ? array_map('strval', $value) : (string) $value;
        }
        return $fields;
    }
}
