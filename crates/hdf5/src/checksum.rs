//! Bob Jenkins' lookup3 `hashlittle` (metadata checksums) and HDF5's Fletcher-32.

#[inline]
fn rot(x: u32, k: u32) -> u32 {
    x.rotate_left(k)
}

pub fn lookup3(data: &[u8], init: u32) -> u32 {
    let mut a = 0xdeadbeefu32
        .wrapping_add(data.len() as u32)
        .wrapping_add(init);
    let mut b = a;
    let mut c = a;
    let mut k = data;
    let w = |s: &[u8], i: usize| -> u32 { u32::from_le_bytes(s[i..i + 4].try_into().unwrap()) };
    while k.len() > 12 {
        a = a.wrapping_add(w(k, 0));
        b = b.wrapping_add(w(k, 4));
        c = c.wrapping_add(w(k, 8));
        a = a.wrapping_sub(c);
        a ^= rot(c, 4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= rot(a, 6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= rot(b, 8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c);
        a ^= rot(c, 16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a);
        b ^= rot(a, 19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b);
        c ^= rot(b, 4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    let mut tail = [0u8; 12];
    tail[..k.len()].copy_from_slice(k);
    a = a.wrapping_add(w(&tail, 0));
    b = b.wrapping_add(w(&tail, 4));
    c = c.wrapping_add(w(&tail, 8));
    c ^= b;
    c = c.wrapping_sub(rot(b, 14));
    a ^= c;
    a = a.wrapping_sub(rot(c, 11));
    b ^= a;
    b = b.wrapping_sub(rot(a, 25));
    c ^= b;
    c = c.wrapping_sub(rot(b, 16));
    a ^= c;
    a = a.wrapping_sub(rot(c, 4));
    b ^= a;
    b = b.wrapping_sub(rot(a, 14));
    c ^= b;
    c = c.wrapping_sub(rot(b, 24));
    c
}

/// Verify a metadata block whose last 4 bytes are the lookup3 checksum of the rest.
pub fn verify(block: &[u8], offset: u64, what: &str) -> arrowsmith_core::Result<()> {
    if block.len() < 4 {
        return Err(crate::io::err(
            offset,
            arrowsmith_core::ErrorCode::Truncated,
            format!("{what}: too short for a checksum"),
        ));
    }
    let (body, sum) = block.split_at(block.len() - 4);
    let stored = u32::from_le_bytes(sum.try_into().unwrap());
    let calc = lookup3(body, 0);
    if stored != calc {
        return Err(crate::io::err(
            offset,
            arrowsmith_core::ErrorCode::Checksum,
            format!("{what}: checksum mismatch (stored {stored:#010x}, computed {calc:#010x})"),
        ));
    }
    Ok(())
}

pub fn fletcher32(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    let mut words = data.chunks_exact(2);
    let mut n = 0;
    for w in &mut words {
        sum1 += ((w[0] as u32) << 8) | w[1] as u32;
        sum2 += sum1;
        n += 1;
        if n == 360 {
            n = 0;
            sum1 = (sum1 & 0xffff) + (sum1 >> 16);
            sum2 = (sum2 & 0xffff) + (sum2 >> 16);
        }
    }
    if n != 0 {
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let [last] = words.remainder() {
        sum1 += (*last as u32) << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

#[cfg(test)]
mod tests {
    #[test]
    fn lookup3_vectors() {
        // From lookup3.c's driver: hashlittle("", 0) = 0xdeadbeef; "Four score..." with 0.
        assert_eq!(super::lookup3(b"", 0), 0xdeadbeef);
        assert_eq!(
            super::lookup3(b"Four score and seven years ago", 0),
            0x17770551
        );
        assert_eq!(
            super::lookup3(b"Four score and seven years ago", 1),
            0xcd628161
        );
    }
}
