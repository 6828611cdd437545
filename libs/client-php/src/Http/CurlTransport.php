<?php

namespace Licensing\Http;

/** HTTP with ext-curl: the whole exchange bounded by the timeout, no redirect followed. */
class CurlTransport implements Transport
{
    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        if (!function_exists('curl_init')) {
            throw ConnectionFailure::because('the curl extension is not loaded');
        }
        $handle = curl_init();
        if ($handle === false) {
            throw ConnectionFailure::because('curl could not start a request');
        }
        $lines = [];
        // curl would wait for "100 Continue" before a larger body; the API never sends one.
        $lines[] = 'Expect:';
        foreach ($headers as $name => $value) {
            $lines[] = $name . ': ' . $value;
        }
        $received = [];
        $milliseconds = max(1, (int) ceil($timeout * 1000));
        curl_setopt_array($handle, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => $milliseconds,
            CURLOPT_CONNECTTIMEOUT_MS => $milliseconds,
            // Below one second curl's default resolver would otherwise time out at once.
            CURLOPT_NOSIGNAL => true,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_HEADERFUNCTION => static function ($handle, string $line) use (&$received): int {
                $trimmed = trim($line);
                if (preg_match('#^HTTP/\S+\s+\d{3}#', $trimmed) === 1) {
                    // A new status line (after 100 Continue): only the last answer's fields count.
                    $received = [];
                } elseif (strpos($trimmed, ':') !== false) {
                    list($name, $value) = explode(':', $trimmed, 2);
                    $received[strtolower(trim($name))][] = trim($value);
                }
                return strlen($line);
            },
        ]);
        if ($body !== null) {
            curl_setopt($handle, CURLOPT_POSTFIELDS, $body);
        }
        $answer = curl_exec($handle);
        $errno = curl_errno($handle);
        $error = curl_error($handle);
        $status = (int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
        curl_close($handle);
        if ($errno === CURLE_OPERATION_TIMEDOUT) {
            throw ConnectionFailure::timedOut($timeout);
        }
        if ($errno !== 0 || !is_string($answer) || $status === 0) {
            throw ConnectionFailure::because($error !== '' ? $error : 'the request failed');
        }
        return new Response($status, $received, $answer);
    }
}
