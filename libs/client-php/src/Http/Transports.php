<?php

namespace Licensing\Http;

/** The transport a client uses when given none: WordPress's, else curl, else PHP's streams. */
final class Transports
{
    public static function detect(): Transport
    {
        if (function_exists('wp_remote_request')) {
            return new WordPressTransport();
        }
        if (function_exists('curl_init')) {
            return new CurlTransport();
        }
        return new StreamTransport();
    }
}
