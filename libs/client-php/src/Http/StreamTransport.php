<?php

namespace Licensing\Http;

/**
 * HTTP with PHP's own streams (no extension needed; https needs ext-openssl): for hosts without
 * curl. The whole exchange is bounded by the timeout; no redirect is followed.
 */
class StreamTransport implements Transport
{
    private const CHUNK = 65536;

    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $start = microtime(true);
        $lines = ['Connection: close'];
        foreach ($headers as $name => $value) {
            if (strtolower($name) !== 'connection') {
                $lines[] = $name . ': ' . $value;
            }
        }
        $options = [
            'method' => $method,
            'header' => implode("\r\n", $lines),
            'timeout' => $timeout,
            'ignore_errors' => true,
            'follow_location' => 0,
            'protocol_version' => 1.1,
        ];
        if ($body !== null) {
            $options['content'] = $body;
        }
        $context = stream_context_create(['http' => $options]);
        $warning = '';
        set_error_handler(static function (int $level, string $message) use (&$warning): bool {
            $warning = $message;
            return true;
        });
        try {
            $stream = fopen($url, 'rb', false, $context);
        } finally {
            restore_error_handler();
        }
        if ($stream === false) {
            if (microtime(true) - $start >= $timeout * 0.95) {
                throw ConnectionFailure::timedOut($timeout);
            }
            throw ConnectionFailure::because(self::plain($warning));
        }
        try {
            $meta = stream_get_meta_data($stream);
            $answer = '';
            while (!feof($stream)) {
                $left = $timeout - (microtime(true) - $start);
                if ($left <= 0) {
                    throw ConnectionFailure::timedOut($timeout);
                }
                stream_set_timeout($stream, (int) floor($left), (int) (($left - floor($left)) * 1e6));
                $chunk = fread($stream, self::CHUNK);
                if ($chunk === false) {
                    throw ConnectionFailure::because('the answer was cut off');
                }
                $answer .= $chunk;
                if (stream_get_meta_data($stream)['timed_out']) {
                    throw ConnectionFailure::timedOut($timeout);
                }
            }
        } finally {
            fclose($stream);
        }
        return self::response(isset($meta['wrapper_data']) ? (array) $meta['wrapper_data'] : [], $answer);
    }

    /** @param array<int, string> $lines the status line and header lines PHP received */
    private static function response(array $lines, string $body): Response
    {
        $status = 0;
        $fields = [];
        foreach ($lines as $line) {
            if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $match) === 1) {
                $status = (int) $match[1];
                $fields = [];
            } elseif (strpos($line, ':') !== false) {
                list($name, $value) = explode(':', $line, 2);
                $fields[strtolower(trim($name))][] = trim($value);
            }
        }
        if ($status === 0) {
            throw ConnectionFailure::because('the answer had no status line');
        }
        return new Response($status, $fields, $body);
    }

    /** PHP's warning without its "fopen(url): " prefix, which repeats the URL and its key. */
    private static function plain(string $warning): string
    {
        $text = preg_replace('/^fopen\([^)]*\):\s*/', '', $warning);
        $text = preg_replace('/^failed to open stream:\s*/i', '', (string) $text);
        return (string) $text;
    }
}
