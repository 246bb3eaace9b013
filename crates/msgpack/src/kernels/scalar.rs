//! Portable kernels (native builds, scalar wasm build, and the reference for tests).

/// [`super::fixint_run`] over all of `src`.
#[inline]
pub fn fixint_run(src: &[u8], dst: &mut Vec<i32>) -> usize {
    // Blocks of 16: test the whole block first (vectorizes natively), then copy it.
    let mut n = 0;
    let mut blocks = src.chunks_exact(16);
    for b in &mut blocks {
        if b.iter().all(|&x| x as i8 >= -32) {
            dst.extend(b.iter().map(|&x| x as i8 as i32));
            n += 16;
        } else {
            let k = b.iter().take_while(|&&x| x as i8 >= -32).count();
            dst.extend(b[..k].iter().map(|&x| x as i8 as i32));
            return n + k;
        }
    }
    let rest = blocks.remainder();
    let k = rest.iter().take_while(|&&x| x as i8 >= -32).count();
    dst.extend(rest[..k].iter().map(|&x| x as i8 as i32));
    n + k
}

/// [`super::tag_run`] over all of `src` (whole records only).
#[inline]
pub fn tag_run(src: &[u8], tag: u8, stride: usize) -> usize {
    src.chunks_exact(stride).take_while(|r| r[0] == tag).count()
}

/// [`super::gather_swap`].
#[inline]
pub fn gather_swap(src: &[u8], width: usize, dst: &mut [u8]) {
    match width {
        1 => gather::<1>(src, dst),
        2 => gather::<2>(src, dst),
        4 => gather::<4>(src, dst),
        8 => gather::<8>(src, dst),
        _ => unreachable!("width checked by caller"),
    }
}

#[inline(always)]
fn gather<const W: usize>(src: &[u8], dst: &mut [u8]) {
    for (s, d) in src.chunks_exact(W + 1).zip(dst.chunks_exact_mut(W)) {
        for i in 0..W {
            d[i] = s[W - i];
        }
    }
}

/// [`super::gather_run8`] over all of `src` (whole records only).
#[inline]
#[allow(unsafe_code)] // set_len over the spare slots the loop wrote
pub fn gather_run8<T: bytemuck::Pod>(src: &[u8], tag: u8, dst: &mut Vec<T>) -> usize {
    let recs = src.len() / 9;
    dst.reserve(recs);
    let at = dst.len();
    // Wasm has no byte swap instruction: LLVM expands `swap_bytes` to 8 shifts, 6 masks
    // and 7 ors. Three mask-and-shift steps do it in 11 operations; the masks come through
    // `black_box` so that LLVM does not recognise the idiom and expand it again.
    let m8 = std::hint::black_box(0x00ff_00ff_00ff_00ffu64);
    let m16 = std::hint::black_box(0x0000_ffff_0000_ffffu64);
    let mut n = 0;
    // Writes go to spare capacity (no capacity check or length store per value).
    for (r, o) in src
        .chunks_exact(9)
        .zip(&mut dst.spare_capacity_mut()[..recs])
    {
        if r[0] != tag {
            break;
        }
        let x = u64::from_le_bytes(r[1..9].try_into().unwrap_or([0; 8]));
        let x = ((x >> 8) & m8) | ((x & m8) << 8);
        let x = ((x >> 16) & m16) | ((x & m16) << 16);
        o.write(bytemuck::cast::<u64, T>(x.rotate_left(32)));
        n += 1;
    }
    // SAFETY: the first `n` spare slots were written above.
    unsafe { dst.set_len(at + n) };
    n
}
