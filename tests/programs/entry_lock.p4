// @entry_lock: the action of a matched entry runs under the entry's lock (for writes that are not
// flow-local). The counter is shared by all packets of a port (key = ingress port), so
// concurrent workers would race without the lock. The action exits early once the counter
// passes a limit; the lock must be released on that path too (a later packet would spin forever
// otherwise). The default action also runs locked (on the default entry). Dynamic entry storage.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> count;
    bit<8>  flag;
}

struct headers_t {
    data_t data;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action shared(@__ref bit<32> total, bit<32> limit) {
        total = total + 1;
        hdr.data.count = total;
        standard_metadata.egress_spec = 1;
        if (total > limit) {
            hdr.data.flag = 0xee;
            exit;
        }
    }
    action other(@__ref bit<32> total) {
        total = total + 2;
        hdr.data.count = total;
        standard_metadata.egress_spec = 3;
    }

    @entry_lock @storage("dynamic")
    table by_port {
        key = {
            standard_metadata.ingress_port: exact;
        }
        actions = {
            shared;
            other;
        }
        default_action = other(0);
    }

    apply {
        by_port.apply();
        hdr.data.flag = hdr.data.flag + 1;   // skipped after `exit`
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
