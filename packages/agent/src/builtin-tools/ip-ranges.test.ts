import { describe, it, expect } from "vitest";
import { isPublicAddress } from "./ip-ranges.js";

describe("isPublicAddress (IPv4)", () => {
  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255", // just below carrier-grade NAT
    "100.128.0.0", // just above carrier-grade NAT
    "172.15.255.255", // just below 172.16/12
    "172.32.0.0", // just above 172.16/12
    "192.0.3.1",
    "198.20.0.1", // just above benchmarking 198.18/15
    "223.255.255.255", // last address before multicast
    "11.0.0.1",
  ])("treats %s as public", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private 10/8"],
    ["10.255.255.255", "private 10/8 upper edge"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT upper edge"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback upper"],
    ["169.254.169.254", "link-local metadata"],
    ["172.16.0.1", "private 172.16/12"],
    ["172.31.255.255", "private 172.16/12 upper edge"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "TEST-NET-1"],
    ["192.88.99.1", "6to4 relay anycast"],
    ["192.168.1.1", "private 192.168/16"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking upper edge"],
    ["198.51.100.7", "TEST-NET-2"],
    ["203.0.113.9", "TEST-NET-3"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast SSDP"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
  ])("refuses %s (%s)", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "0x7f.0.0.1", "2130706433", "1.2.3.-4"])(
    "treats the malformed or non-canonical %j as not public",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    },
  );
});

describe("isPublicAddress (IPv6)", () => {
  it.each([
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "[2606:4700:4700::1111]",
    "2a00:1450:4001:82a::200e",
    "2001:200::1", // first block after 2001::/23
    "3ffe::1",
    "3fff:1000::1", // just past the 3fff::/20 documentation block
    "::ffff:8.8.8.8", // mapped public IPv4
    "::ffff:808:808",
    "64:ff9b::808:808", // NAT64 of a public IPv4
    "2002:0808:0808::1", // 6to4 of a public IPv4
  ])("treats %s as public", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback in brackets"],
    ["0:0:0:0:0:0:0:1", "loopback written out"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback in hex"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:0:127.0.0.1", "IPv4-translated loopback"],
    ["::127.0.0.1", "deprecated IPv4-compatible"],
    ["::8.8.8.8", "deprecated IPv4-compatible even for public IPv4"],
    ["64:ff9b::127.0.0.1", "NAT64 of loopback"],
    ["64:ff9b::a00:1", "NAT64 of private"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:0001::1", "6to4 of loopback"],
    ["2002:c0a8:0101::1", "6to4 of private"],
    ["100::1", "discard-only"],
    ["2001::1", "Teredo"],
    ["2001:10::1", "ORCHID"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation (RFC 9637)"],
    ["fc00::1", "unique local"],
    ["fd12:3456:789a::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with zone"],
    ["febf::1", "link-local upper"],
    ["fec0::1", "deprecated site-local"],
    ["ff02::1", "multicast"],
    ["ff05::1:3", "multicast"],
    ["4000::1", "outside global unicast"],
    ["1000::1", "outside global unicast"],
  ])("refuses %s (%s)", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([":::1", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::1", "g::1", "1:2:3:4:5:6:7", "::ffff:1.2.3", "[::1"])(
    "treats the malformed %j as not public",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    },
  );
});
